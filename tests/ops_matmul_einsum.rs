//! BatchMatMulV2 (broadcast batch dimensions, adjoints) and Einsum (the patterns attention
//! layers use, lowered to batched products): values as TensorFlow 2.21 gives them
//! (`scripts/gen_ops_arrays.py values`, cases `bmm_*` and `einsum *`), errors, gradient
//! layout and finite-difference gradient checks.

mod common;
use common::{assert_close, check_gradients, one, weighted};
use tensorgraph::train::gradients;
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

const TOL: f64 = 1e-6;

fn run(out: &Output) -> tensorgraph::Result<Tensor> {
    let sess = Session::new(out.graph()).unwrap();
    Ok(sess.run(&[], &[out], &[])?.remove(0))
}

/// `arange(n) * scale + shift` as float32 of `shape`.
fn ramp(s: &Scope, shape: &[usize], scale: f32, shift: f32) -> Output {
    let n: usize = shape.iter().product();
    ops::constant(s, Tensor::new(shape, (0..n).map(|v| v as f32 * scale + shift).collect()).unwrap()).unwrap()
}

fn check(out: &Output, shape: &[usize], want: &[f64]) {
    let r = run(out).unwrap();
    assert_eq!(r.shape(), shape, "{}", out.name());
    assert_close(&out.name(), &r.to_f64_vec().unwrap(), want);
}

#[test]
fn batch_matmul_broadcasts_and_adjoints() {
    let g = Graph::new();
    let s = g.scope();
    // TensorFlow divides: arange / 10 and arange / 7 - 1 (float32, as here up to rounding)
    let n = |shape: &[usize], div: f32, shift: f32| {
        let k: usize = shape.iter().product();
        ops::constant(&s, Tensor::new(shape, (0..k).map(|v| v as f32 / div + shift).collect()).unwrap()).unwrap()
    };
    let y = ops::batch_matmul(&s, &n(&[2, 1, 2, 3], 10.0, 0.0), &n(&[3, 3, 2], 7.0, -1.0), false, false).unwrap();
    assert_eq!(y.name(), "MatMul:0");
    assert_eq!(y.op().op_type(), "BatchMatMulV2");
    assert_eq!(y.shape(), Shape::known(&[2, 3, 2, 2]));
    check(
        &y,
        &[2, 3, 2, 2],
        &[
            -0.15714284777641296,
            -0.11428570747375488,
            -0.8000000715255737,
            -0.6285713911056519,
            0.10000001639127731,
            0.1428571343421936,
            0.22857147455215454,
            0.3999999761581421,
            0.3571428656578064,
            0.4000000059604645,
            1.2571429014205933,
            1.4285714626312256,
            -1.4428571462631226,
            -1.1428570747375488,
            -2.085714340209961,
            -1.6571428775787354,
            0.35714292526245117,
            0.6571428179740906,
            0.4857144057750702,
            0.9142856597900391,
            2.1571431159973145,
            2.4571428298950195,
            3.057142972946167,
            3.4857144355773926,
        ],
    );
    let y =
        ops::batch_matmul(&s, &ramp(&s, &[2, 3, 2], 1.0, 0.0), &ramp(&s, &[2, 4, 3], 1.0, 0.0), true, true).unwrap();
    assert_eq!(y.shape(), Shape::known(&[2, 2, 4]));
    check(
        &y,
        &[2, 2, 4],
        &[10.0, 28.0, 46.0, 64.0, 13.0, 40.0, 67.0, 94.0, 316.0, 388.0, 460.0, 532.0, 355.0, 436.0, 517.0, 598.0],
    );
    let ints = |shape: &[usize]| {
        let k: usize = shape.iter().product();
        ops::constant(&s, Tensor::new(shape, (0..k as i32).collect()).unwrap()).unwrap()
    };
    let y = ops::batch_matmul(&s, &ints(&[2, 2, 3]), &ints(&[3, 2]), false, false).unwrap();
    assert_eq!(run(&y).unwrap().to_vec::<i32>().unwrap(), [10, 13, 28, 40, 46, 67, 64, 94]);
    // partial shapes
    let p = ops::placeholder(&s, DType::Float, [None, Some(3), None]).unwrap();
    let q = ops::placeholder(&s, DType::Float, [Some(1), None, Some(5)]).unwrap();
    assert_eq!(ops::batch_matmul(&s, &p, &q, false, false).unwrap().shape(), Shape::partial(&[None, Some(3), Some(5)]));
}

#[test]
fn batch_matmul_errors() {
    let g = Graph::new();
    let s = g.scope();
    let z = |shape: &[usize]| ramp(&s, shape, 0.0, 0.0);
    let e = ops::batch_matmul(&s, &z(&[2, 3, 4]), &z(&[5, 4, 2]), false, false).unwrap_err();
    assert!(e.message.contains("Dimensions must be equal, but are 2 and 5"), "{}", e.message);
    let e = ops::batch_matmul(&s, &z(&[2, 3, 4]), &z(&[2, 5, 2]), false, false).unwrap_err();
    assert!(e.message.contains("Dimensions must be equal, but are 4 and 5"), "{}", e.message);
    let e = ops::batch_matmul(&s, &z(&[4]), &z(&[4, 2]), false, false).unwrap_err();
    assert!(e.message.contains("Shape must be at least rank 2 but is rank 1"), "{}", e.message);
    let unknown = |x: Output| ops::placeholder_with_default(&s, &x, Shape::unknown()).unwrap();
    let y = ops::batch_matmul(&s, &unknown(z(&[2, 3, 4])), &z(&[5, 4, 2]), false, false).unwrap();
    let e = run(&y).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(
        e.message.contains("In[0] and In[1] must have compatible batch dimensions: [2, 3, 4] vs. [5, 4, 2]"),
        "{}",
        e.message
    );
    let y = ops::batch_matmul(&s, &unknown(z(&[2, 3, 4])), &z(&[2, 5, 2]), false, false).unwrap();
    let e = run(&y).unwrap_err();
    assert!(e.message.contains("Matrix size-incompatible: In[0]: [2, 3, 4], In[1]: [2, 5, 2]"), "{}", e.message);
}

#[test]
fn batch_matmul_gradients() {
    for (adj_x, adj_y) in [(false, false), (true, false), (false, true), (true, true)] {
        for (a, b) in [(vec![2, 3, 4], vec![2, 4, 5]), (vec![2, 1, 3, 4], vec![3, 4, 5]), (vec![3, 4], vec![2, 4, 5])] {
            let mut a = a.clone();
            let mut b = b.clone();
            let (ra, rb) = (a.len(), b.len());
            if adj_x {
                a.swap(ra - 1, ra - 2);
            }
            if adj_y {
                b.swap(rb - 1, rb - 2);
            }
            let inp = vec![one(&a, 1, -1.0, 1.0), one(&b, 2, -1.0, 1.0)];
            check_gradients(&inp, TOL, |s, x| {
                let y = ops::batch_matmul(s, &x[0], &x[1], adj_x, adj_y).unwrap();
                let shape = y.shape().to_vec().unwrap();
                weighted(s, &y, &shape, 3)
            });
        }
    }
    // the layout: BatchMatMulV2 products named MatMul with grad_x / grad_y, and for
    // broadcast batch dimensions TensorFlow's strided_slice + BroadcastGradientArgs + Sum
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [2, 1, 3, 4]).unwrap();
    let y = ops::placeholder(&s.named("y"), DType::Float, [5, 4, 2]).unwrap();
    let z = ops::batch_matmul(&s, &x, &y, false, false).unwrap();
    let gr = gradients(&[z], &[x, y], None).unwrap();
    let mm = g.operation_by_name("gradients/MatMul_grad/MatMul").unwrap().node();
    assert_eq!(mm.op_type, "BatchMatMulV2");
    assert!(mm.attr_bool_or("adj_y", false).unwrap());
    assert!(mm.attr_bool_or("grad_x", false).unwrap());
    assert!(g
        .operation_by_name("gradients/MatMul_grad/MatMul_1")
        .unwrap()
        .node()
        .attr_bool_or("grad_y", false)
        .unwrap());
    assert_eq!(g.operation_by_name("gradients/MatMul_grad/strided_slice").unwrap().op_type(), "StridedSlice");
    assert_eq!(gr[0].as_ref().unwrap().name(), "gradients/MatMul_grad/Reshape:0");
    assert_eq!(gr[1].as_ref().unwrap().name(), "gradients/MatMul_grad/Reshape_1:0");
    assert_eq!(gr[1].as_ref().unwrap().shape(), Shape::known(&[5, 4, 2]));
}

#[test]
fn einsum_attention_patterns_match_tensorflow() {
    let g = Graph::new();
    let s = g.scope();
    #[allow(clippy::type_complexity)]
    let cases: Vec<(&str, &[usize], &[usize], &[usize], Vec<f64>)> = vec![
        (
            "bij,bjk->bik",
            &[2, 2, 3],
            &[2, 3, 2],
            &[2, 2, 2],
            [
                0.36666667461395264,
                0.5666666626930237,
                0.6666667461395264,
                1.4666666984558105,
                9.366666793823242,
                10.766666412353516,
                13.266666412353516,
                15.266666412353516,
            ]
            .to_vec(),
        ),
        (
            "bhqd,bhkd->bhqk",
            &[1, 2, 3, 2],
            &[1, 2, 2, 2],
            &[1, 2, 3, 2],
            [
                -0.03333333134651184,
                0.10000000149011612,
                -0.30000001192092896,
                0.36666667461395264,
                -0.5666666626930237,
                0.6333333253860474,
                2.633333206176758,
                4.366666793823242,
                3.433333396911621,
                5.699999809265137,
                4.233333587646484,
                7.0333333015441895,
            ]
            .to_vec(),
        ),
        (
            "bhqk,bhkd->bhqd",
            &[1, 2, 3, 2],
            &[1, 2, 2, 2],
            &[1, 2, 3, 2],
            [
                0.03333333879709244,
                0.10000000149011612,
                -0.09999998658895493,
                0.23333334922790527,
                -0.23333331942558289,
                0.36666667461395264,
                3.0999999046325684,
                3.9666666984558105,
                4.0333333015441895,
                5.166666507720947,
                4.966667175292969,
                6.366666793823242,
            ]
            .to_vec(),
        ),
        (
            "ij,jk->ik",
            &[2, 3],
            &[3, 2],
            &[2, 2],
            [0.366666704416275, 0.5666666626930237, 0.6666667461395264, 1.4666666984558105].to_vec(),
        ),
        (
            "bqd,de->bqe",
            &[2, 2, 3],
            &[3, 2],
            &[2, 2, 2],
            [
                0.366666704416275,
                0.5666666626930237,
                0.6666667461395264,
                1.4666666984558105,
                0.9666667580604553,
                2.366666555404663,
                1.2666668891906738,
                3.2666666507720947,
            ]
            .to_vec(),
        ),
        (
            "...ij,...jk->...ik",
            &[2, 1, 2, 3],
            &[3, 3, 2],
            &[2, 3, 2, 2],
            [
                0.36666667461395264,
                0.5666666626930237,
                0.6666667461395264,
                1.4666666984558105,
                1.5666667222976685,
                1.7666667699813843,
                5.4666666984558105,
                6.266666412353516,
                2.7666666507720947,
                2.9666666984558105,
                10.266666412353516,
                11.066667556762695,
                0.9666666984558105,
                2.366666793823242,
                1.2666668891906738,
                3.2666666507720947,
                9.366666793823242,
                10.766666412353516,
                13.266666412353516,
                15.266666412353516,
                17.766666412353516,
                19.16666603088379,
                25.266666412353516,
                27.266666412353516,
            ]
            .to_vec(),
        ),
        (
            "abc,cd->da",
            &[2, 3, 2],
            &[2, 3],
            &[3, 2],
            [
                0.2999999523162842,
                0.2999997138977051,
                1.3000000715255737,
                3.6999998092651367,
                2.299999952316284,
                7.09999942779541,
            ]
            .to_vec(),
        ),
    ];
    for (eq, sa, sb, shape, want) in cases {
        // TensorFlow: arange / 5 and arange / 3 - 0.5
        let n = |shape: &[usize], div: f32, shift: f32| {
            let k: usize = shape.iter().product();
            ops::constant(&s, Tensor::new(shape, (0..k).map(|v| v as f32 / div + shift).collect()).unwrap()).unwrap()
        };
        let y = ops::einsum(&s.name_scope("einsum"), eq, &[n(sa, 5.0, 0.0), n(sb, 3.0, -0.5)]).unwrap();
        assert_eq!(y.shape(), Shape::known(shape), "{eq}");
        let r = run(&y).unwrap();
        assert_eq!(r.shape(), shape, "{eq}");
        let got = r.to_f64_vec().unwrap();
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!((g - w).abs() <= 1e-5 * w.abs().max(1.0), "{eq}[{i}]: {g} vs TensorFlow {w}");
        }
    }
    assert_eq!(g.operation_by_name("einsum/Einsum").unwrap().op_type(), "Einsum");
    let y = ops::einsum(&s, "ij->ji", &[ramp(&s, &[2, 3], 1.0, 0.0)]).unwrap();
    check(&y, &[3, 2], &[0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    let y = ops::einsum(&s, "ijk->k", &[ramp(&s, &[2, 3, 2], 1.0, 0.0)]).unwrap();
    check(&y, &[2], &[30.0, 36.0]);
}

#[test]
fn einsum_errors() {
    let g = Graph::new();
    let s = g.scope();
    let a = ramp(&s, &[2, 3], 1.0, 0.0);
    let b = ramp(&s, &[4, 5], 1.0, 0.0);
    let msg = |eq: &str, ins: &[Output]| ops::einsum(&s, eq, ins).unwrap_err().message;
    assert!(msg("ij,jk->ik", &[a.clone(), b.clone()]).contains("Dimensions must be equal, but are 3 and 4"));
    assert!(msg("ij,jk", &[a.clone(), b.clone()]).contains("Expecting exactly one '->' in einsum equation: ij,jk"));
    assert!(msg("ij->ij", &[a.clone(), b.clone()]).contains("Expected 1 inputs for equation ij->ij but got: 2"));
    assert!(msg("ij,jk->iz", &[a.clone(), b.clone()]).contains(
        "Einsum output subscripts for equation 'ij,jk->iz' has label 'z' which is not present in the input subscripts"
    ));
    assert!(msg("ijk,kl->il", &[a.clone(), b.clone()]).contains("Shape must be rank 3 but is rank 2"));
    // a repeated label (a trace) is refused when the session prepares the node
    let t = ops::einsum(&s, "ii->i", &[ramp(&s, &[2, 2], 1.0, 0.0)]).unwrap();
    assert_eq!(run(&t).unwrap_err().code, Code::Unimplemented);
}

#[test]
fn einsum_gradients() {
    let cases: Vec<(&str, Vec<usize>, Vec<usize>)> = vec![
        ("bij,bjk->bik", vec![2, 2, 3], vec![2, 3, 2]),
        ("bhqd,bhkd->bhqk", vec![1, 2, 3, 2], vec![1, 2, 2, 2]),
        ("bhqk,bhkd->bhqd", vec![1, 2, 3, 2], vec![1, 2, 2, 2]),
        ("ij,jk->ik", vec![2, 3], vec![3, 2]),
        ("bqd,de->bqe", vec![2, 2, 3], vec![3, 2]),
        ("abc,cd->da", vec![2, 3, 2], vec![2, 3]),
        ("...ij,...jk->...ik", vec![2, 1, 2, 3], vec![3, 3, 2]),
        ("ij,jk->ki", vec![2, 3], vec![3, 2]),
    ];
    for (eq, a, b) in cases {
        let inp = vec![one(&a, 1, -1.0, 1.0), one(&b, 2, -1.0, 1.0)];
        check_gradients(&inp, TOL, |s, x| {
            let y = ops::einsum(s, eq, &[x[0].clone(), x[1].clone()]).unwrap();
            let shape = y.shape().to_vec().unwrap();
            weighted(s, &y, &shape, 3)
        });
    }
    for eq in ["ijk->kj", "ijk->k", "ijk->ki"] {
        let inp = vec![one(&[2, 3, 2], 4, -1.0, 1.0)];
        check_gradients(&inp, TOL, |s, x| {
            let y = ops::einsum(s, eq, &[x[0].clone()]).unwrap();
            let shape = y.shape().to_vec().unwrap();
            weighted(s, &y, &shape, 5)
        });
    }
    // the layout: the gradient of each operand is one Einsum
    let g = Graph::new();
    let s = g.scope();
    let q = ops::placeholder(&s.named("q"), DType::Float, [1, 2, 3, 4]).unwrap();
    let k = ops::placeholder(&s.named("k"), DType::Float, [1, 2, 5, 4]).unwrap();
    let y = ops::einsum(&s, "bhqd,bhkd->bhqk", &[q.clone(), k.clone()]).unwrap();
    let gr = gradients(&[y], &[q, k], None).unwrap();
    let gq = gr[0].as_ref().unwrap().op().node();
    assert_eq!(gq.op_type, "Einsum");
    assert_eq!(gq.name, "gradients/Einsum_grad/Einsum");
    assert_eq!(gq.attrs.get("equation"), Some(&tensorgraph::graph::AttrValue::String(b"bhqk,bhkd->bhqd".to_vec())));
    assert_eq!(gr[1].as_ref().unwrap().shape(), Shape::known(&[1, 2, 5, 4]));
}
