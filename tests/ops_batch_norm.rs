//! FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3 and their gradient ops: TensorFlow
//! 2.21's values in inference and training (NHWC, NCHW, NCDHW, running averages, float16;
//! the consts below are printed by `scripts/nnops_reference.py batch_norm`), edge cases,
//! errors, the gradient graphs, and finite-difference checks of the gradients in float32
//! (the ops have no float64 kernel in TensorFlow).

mod common;
use common::assert_close;
use tensorgraph::graph::AttrValue;
use tensorgraph::ops::{FusedBatchNormOptions, FusedBatchNormVersion};
use tensorgraph::train::gradients;
use tensorgraph::{ops, Code, DType, Graph, Operation, Output, Scope, Session, Shape, Tensor};

const SCALE: &[f32] = &[1.5, -0.5, 2.0];
const OFFSET: &[f32] = &[0.1, 0.2, -0.3];
const MEAN: &[f32] = &[0.2, -0.1, 0.05];
const VAR: &[f32] = &[0.5, 1.5, 2.0];

fn c(s: &Scope, shape: &[usize], v: &[f32]) -> Output {
    ops::constant(s, Tensor::new(shape, v.to_vec()).unwrap()).unwrap()
}

fn vec3(s: &Scope, v: &[f32]) -> Output {
    c(s, &[3], v)
}

fn f64s(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

fn run_all(op: &Operation) -> Vec<Tensor> {
    let outs: Vec<Output> = (0..op.num_outputs()).map(|i| op.output(i).unwrap()).collect();
    let refs: Vec<&Output> = outs.iter().collect();
    Session::new(op.graph()).unwrap().run(&[], &refs, &[]).unwrap()
}

fn opts(training: bool, format: &str) -> FusedBatchNormOptions {
    FusedBatchNormOptions { is_training: training, data_format: format.into(), ..Default::default() }
}

/// Builds the op of `o.version` on constants and runs it.
fn forward(shape: &[usize], x: &[f32], o: &FusedBatchNormOptions) -> (Operation, Vec<Tensor>) {
    let g = Graph::new();
    let s = g.scope();
    let (m, v) = (vec3(&s, MEAN), vec3(&s, VAR));
    let op = ops::fused_batch_norm(&s, &c(&s, shape, x), &vec3(&s, SCALE), &vec3(&s, OFFSET), Some(&m), Some(&v), o)
        .unwrap();
    let out = run_all(&op);
    (op, out)
}

/// (data_format, shape, x, exponential_avg_factor, TensorFlow's five outputs)
type TrainCase = (&'static str, &'static [usize], &'static [f32], f32, [&'static [f32]; 5]);
/// (shape, first input, second input, data_format, is_training, TensorFlow's three values)
type GradCase = (&'static [usize], &'static [f32], &'static [f32], &'static str, bool, [&'static [f32]; 3]);

fn check(what: &str, got: &Tensor, want: &[f32]) {
    assert_close(what, &got.to_f64_vec().unwrap(), &f64s(want));
}

#[test]
fn inference_matches_tensorflow_in_nhwc_and_nchw() {
    for (fmt, shape, x, want) in [
        ("NHWC", [2, 3, 2, 3], X_NHWC, [INF_NHWC_0, INF_NHWC_1, INF_NHWC_2]),
        ("NCHW", [2, 3, 2, 2], X_NCHW, [INF_NCHW_0, INF_NCHW_1, INF_NCHW_2]),
    ] {
        let (op, out) = forward(&shape, x, &opts(false, fmt));
        assert_eq!(op.name(), "FusedBatchNormV3");
        assert_eq!(op.output(0).unwrap().shape(), Shape::known(&shape));
        for i in 1..5 {
            assert_eq!(op.output(i).unwrap().shape(), Shape::known(&[3]), "output {i}");
        }
        assert_eq!(op.output(5).unwrap().shape(), Shape::unknown());
        for (i, w) in want.iter().enumerate() {
            check(&format!("{fmt} output {i}"), &out[i], w);
        }
        // the reserve spaces hold the given statistics (TensorFlow's CPU kernel leaves them unset)
        check("reserve_space_1", &out[3], MEAN);
        check("reserve_space_2", &out[4], VAR);
        assert_eq!(out[5].shape(), [0]);
    }
}

#[test]
fn training_matches_tensorflow() {
    let cases: [TrainCase; 3] = [
        ("NHWC", &[2, 3, 2, 3], X_NHWC, 1.0, [TRAIN_NHWC_0, TRAIN_NHWC_1, TRAIN_NHWC_2, TRAIN_NHWC_3, TRAIN_NHWC_4]),
        ("NCHW", &[2, 3, 2, 2], X_NCHW, 1.0, [TRAIN_NCHW_0, TRAIN_NCHW_1, TRAIN_NCHW_2, TRAIN_NCHW_3, TRAIN_NCHW_4]),
        (
            "NHWC",
            &[2, 3, 2, 3],
            X_NHWC,
            0.25,
            [TRAIN_NHWC_F025_0, TRAIN_NHWC_F025_1, TRAIN_NHWC_F025_2, TRAIN_NHWC_F025_3, TRAIN_NHWC_F025_4],
        ),
    ];
    for (fmt, shape, x, factor, want) in cases {
        let o = FusedBatchNormOptions { exponential_avg_factor: factor, ..opts(true, fmt) };
        let (_, out) = forward(shape, x, &o);
        for (i, w) in want.iter().enumerate() {
            check(&format!("{fmt} factor {factor} output {i}"), &out[i], w);
        }
    }
    // NCDHW (5-d, V3 only)
    let (_, out) = forward(&[2, 3, 2, 2, 2], X_NCDHW, &opts(true, "NCDHW"));
    for (i, w) in [TRAIN_NCDHW_0, TRAIN_NCDHW_1, TRAIN_NCDHW_2].iter().enumerate() {
        check(&format!("NCDHW output {i}"), &out[i], w);
    }
    // V1 and V2 compute the same
    for (version, op_type) in
        [(FusedBatchNormVersion::V1, "FusedBatchNorm"), (FusedBatchNormVersion::V2, "FusedBatchNormV2")]
    {
        let (op, out) = forward(&[2, 3, 2, 3], X_NHWC, &FusedBatchNormOptions { version, ..opts(true, "NHWC") });
        assert_eq!((op.op_type(), op.num_outputs()), (op_type.to_string(), 5));
        for (i, w) in [TRAIN_NHWC_0, TRAIN_NHWC_1, TRAIN_NHWC_2, TRAIN_NHWC_3, TRAIN_NHWC_4].iter().enumerate() {
            check(&format!("{op_type} output {i}"), &out[i], w);
        }
    }
}

#[test]
fn float16_input_with_float32_statistics() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::cast(&s, &c(&s, &[2, 3, 2, 3], X_NHWC), DType::Half).unwrap();
    let op =
        ops::fused_batch_norm(&s, &x, &vec3(&s, SCALE), &vec3(&s, OFFSET), None, None, &opts(true, "NHWC")).unwrap();
    assert_eq!(op.output(0).unwrap().dtype(), DType::Half);
    assert_eq!(op.output(1).unwrap().dtype(), DType::Float);
    let out = run_all(&op);
    assert_eq!(out[0].dtype(), DType::Half);
    // float16 has 11 bits of precision: TensorFlow's y agrees to its rounding
    for (i, (a, b)) in out[0].to_f64_vec().unwrap().iter().zip(TRAIN_NHWC_HALF_0).enumerate() {
        assert!((a - *b as f64).abs() <= 2e-3 * (1.0 + b.abs() as f64), "y[{i}]: {a} vs TF {b}");
    }
    for (i, w) in [TRAIN_NHWC_HALF_1, TRAIN_NHWC_HALF_2, TRAIN_NHWC_HALF_3, TRAIN_NHWC_HALF_4].iter().enumerate() {
        check(&format!("half output {}", i + 1), &out[i + 1], w);
    }
}

#[test]
fn empty_statistics_inputs_one_element_and_empty_batches() {
    // training without mean/variance: empty float32 constants, as tf.compat.v1.nn.fused_batch_norm
    let g = Graph::new();
    let s = g.scope();
    let x = c(&s, &[2, 3, 2, 3], X_NHWC);
    let op =
        ops::fused_batch_norm(&s, &x, &vec3(&s, SCALE), &vec3(&s, OFFSET), None, None, &opts(true, "NHWC")).unwrap();
    let names: Vec<String> = g.operations().iter().map(|o| o.name()).collect();
    assert_eq!(names[names.len() - 3..], ["Const_3", "Const_4", "FusedBatchNormV3"]);
    let out = run_all(&op);
    check("y", &out[0], TRAIN_NHWC_0);
    check("batch_variance", &out[2], TRAIN_NHWC_2);
    // one element per channel: no Bessel correction (TensorFlow: variance 0, not NaN)
    let one = [0.5f32, -1.0, 2.0];
    let (_, out) = forward(&[1, 1, 1, 3], &one, &opts(true, "NHWC"));
    check("n=1 y", &out[0], OFFSET);
    check("n=1 mean", &out[1], &one);
    check("n=1 variance", &out[2], &[0.0; 3]);
    let o = FusedBatchNormOptions { exponential_avg_factor: 0.5, ..opts(true, "NHWC") };
    let (_, out) = forward(&[1, 1, 1, 3], &one, &o);
    check("n=1 running variance", &out[2], &VAR.iter().map(|v| v * 0.5).collect::<Vec<_>>());
    // an empty batch: NaN statistics, zero reserve spaces, in both modes
    for training in [true, false] {
        let (_, out) = forward(&[0, 2, 2, 3], &[], &opts(training, "NHWC"));
        assert_eq!(out[0].shape(), [0, 2, 2, 3]);
        for i in [1, 2] {
            assert!(out[i].to_vec::<f32>().unwrap().iter().all(|v| v.is_nan()), "output {i}");
        }
        check("reserve_space_1", &out[3], &[0.0; 3]);
        check("reserve_space_2", &out[4], &[0.0; 3]);
    }
}

/// The gradient op of `version` on constants.
fn grad_op(
    version: FusedBatchNormVersion,
    shape: &[usize],
    dy: &[f32],
    x: &[f32],
    fmt: &str,
    training: bool,
) -> Vec<Tensor> {
    let g = Graph::new();
    let s = g.scope();
    let (m, v) = (vec3(&s, MEAN), vec3(&s, VAR));
    let r3 = c(&s, &[0], &[]);
    let op = ops::fused_batch_norm_grad(
        &s,
        version,
        &c(&s, shape, dy),
        &c(&s, shape, x),
        &vec3(&s, SCALE),
        [&m, &v],
        Some(&r3),
        0.001,
        fmt,
        training,
    )
    .unwrap();
    assert_eq!(op.output(0).unwrap().shape(), Shape::known(shape));
    assert_eq!(op.output(3).unwrap().shape(), Shape::known(&[0]));
    run_all(&op)
}

#[test]
fn gradient_ops_match_tensorflow() {
    use FusedBatchNormVersion::*;
    let cases: [GradCase; 3] = [
        (&[2, 3, 2, 3], DY_NHWC, X_NHWC, "NHWC", true, [GRAD_TRAIN_NHWC_0, GRAD_TRAIN_NHWC_1, GRAD_TRAIN_NHWC_2]),
        (&[2, 3, 2, 3], DY_NHWC, X_NHWC, "NHWC", false, [GRAD_INF_NHWC_0, GRAD_INF_NHWC_1, GRAD_INF_NHWC_2]),
        (&[2, 3, 2, 2], DY_NCHW, X_NCHW, "NCHW", true, [GRAD_TRAIN_NCHW_0, GRAD_TRAIN_NCHW_1, GRAD_TRAIN_NCHW_2]),
    ];
    for (shape, dy, x, fmt, training, want) in cases {
        for version in [V1, V2, V3] {
            let out = grad_op(version, shape, dy, x, fmt, training);
            for (i, w) in want.iter().enumerate() {
                check(&format!("{version:?} {fmt} training={training} output {i}"), &out[i], w);
            }
            assert_eq!(out[3].shape(), [0]);
            assert_eq!(out[4].shape(), [0]);
        }
    }
}

fn ops_under(g: &Graph, prefix: &str) -> Vec<(String, String)> {
    g.operations().iter().filter(|o| o.name().starts_with(prefix)).map(|o| (o.name(), o.op_type())).collect()
}

/// `tf.gradients(sum(y * dy), [x, scale, offset])` as TensorFlow computed them.
#[test]
fn symbolic_gradients_match_tensorflow() {
    let cases: [GradCase; 2] = [
        (&[2, 3, 2, 3], X_NHWC, DY_NHWC, "NHWC", true, [SYM_TRAIN_NHWC_0, SYM_TRAIN_NHWC_1, SYM_TRAIN_NHWC_2]),
        (&[2, 3, 2, 2], X_NCHW, DY_NCHW, "NCHW", false, [SYM_INF_NCHW_0, SYM_INF_NCHW_1, SYM_INF_NCHW_2]),
    ];
    for (shape, x, dy, fmt, training, want) in cases {
        let g = Graph::new();
        let s = g.scope();
        let (x, sc, of) = (c(&s, shape, x), vec3(&s, SCALE), vec3(&s, OFFSET));
        let (m, v) = (vec3(&s, MEAN), vec3(&s, VAR));
        let op = ops::fused_batch_norm(&s, &x, &sc, &of, Some(&m), Some(&v), &opts(training, fmt)).unwrap();
        let loss = ops::reduce_sum(&s, &ops::mul(&s, &op.output(0).unwrap(), &c(&s, shape, dy)).unwrap(), None, false)
            .unwrap();
        let grads = gradients(&[loss], &[x, sc, of, m], None).unwrap();
        assert!(grads[3].is_none(), "no gradient flows to the mean");
        let fetch: Vec<&Output> = grads[..3].iter().map(|g| g.as_ref().unwrap()).collect();
        let out = Session::new(&g).unwrap().run(&[], &fetch, &[]).unwrap();
        for (i, w) in want.iter().enumerate() {
            check(&format!("{fmt} training={training} gradient {i}"), &out[i], w);
        }
        let want_ops: Vec<(&str, &str)> = if training {
            vec![("gradients/FusedBatchNormV3_grad/FusedBatchNormGradV3", "FusedBatchNormGradV3")]
        } else {
            vec![
                ("gradients/FusedBatchNormV3_grad/transpose/perm", "Const"),
                ("gradients/FusedBatchNormV3_grad/transpose", "Transpose"),
                ("gradients/FusedBatchNormV3_grad/transpose_1/perm", "Const"),
                ("gradients/FusedBatchNormV3_grad/transpose_1", "Transpose"),
                ("gradients/FusedBatchNormV3_grad/FusedBatchNormGradV3", "FusedBatchNormGradV3"),
                ("gradients/FusedBatchNormV3_grad/transpose_2/perm", "Const"),
                ("gradients/FusedBatchNormV3_grad/transpose_2", "Transpose"),
            ]
        };
        let want_ops: Vec<(String, String)> = want_ops.iter().map(|&(a, b)| (a.into(), b.into())).collect();
        assert_eq!(ops_under(&g, "gradients/FusedBatchNormV3_grad/"), want_ops);
        let gop = g.operation_by_name("gradients/FusedBatchNormV3_grad/FusedBatchNormGradV3").unwrap().node();
        let nhwc = AttrValue::String(b"NHWC".to_vec());
        // training keeps NHWC; inference in NCHW runs the gradient op on NHWC transposes
        assert_eq!(gop.attrs.get("data_format"), Some(&nhwc));
        assert_eq!(gop.attrs.get("is_training"), Some(&AttrValue::Bool(training)));
        assert_eq!(gop.attrs.get("epsilon"), Some(&AttrValue::Float(0.001)));
    }
}

/// Checks the symbolic gradients of `sum(f(inputs) * w)` against central differences in
/// float32 (step 1e-2; TensorFlow registers the ops for float32, not float64).
fn check_gradients_f32(inputs: &[(Vec<usize>, Vec<f32>)], f: impl Fn(&Scope, &[Output]) -> Output) {
    let g = Graph::new();
    let s = g.scope();
    let phs: Vec<Output> = inputs
        .iter()
        .enumerate()
        .map(|(i, (shape, _))| ops::placeholder(&s.named(&format!("x{i}")), DType::Float, shape.clone()).unwrap())
        .collect();
    let y = f(&s, &phs);
    let n: usize = y.shape().dims().unwrap().iter().map(|d| d.unwrap()).product();
    let w = Tensor::new(&[n], common::values(n, 99, -1.0, 1.0).iter().map(|&v| v as f32).collect()).unwrap();
    let w = ops::reshape(&s, &ops::constant(&s, w).unwrap(), &ops::shape(&s, &y).unwrap()).unwrap();
    let loss = ops::reduce_sum(&s, &ops::mul(&s, &y, &w).unwrap(), None, false).unwrap();
    let grads = gradients(std::slice::from_ref(&loss), &phs, None).unwrap();
    let sess = Session::new(&g).unwrap();
    let eval = |vals: &[Vec<f32>], out: &Output| -> Vec<f64> {
        let feeds: Vec<(&Output, Tensor)> = phs
            .iter()
            .zip(inputs)
            .zip(vals)
            .map(|((p, (sh, _)), v)| (p, Tensor::new(sh, v.clone()).unwrap()))
            .collect();
        sess.run(&feeds, &[out], &[]).unwrap()[0].to_f64_vec().unwrap()
    };
    let base: Vec<Vec<f32>> = inputs.iter().map(|(_, v)| v.clone()).collect();
    for (i, gi) in grads.iter().enumerate() {
        let sym = eval(&base, gi.as_ref().unwrap_or_else(|| panic!("no gradient for input {i}")));
        for j in 0..base[i].len() {
            let h = 1e-2f32;
            let (mut up, mut dn) = (base.clone(), base.clone());
            up[i][j] += h;
            dn[i][j] -= h;
            let num = (eval(&up, &loss)[0] - eval(&dn, &loss)[0]) / (2.0 * h as f64);
            let err = (num - sym[j]).abs() / sym[j].abs().max(1.0);
            assert!(err < 2e-3, "input {i} element {j}: symbolic {} vs numeric {num}", sym[j]);
        }
    }
}

fn pattern(n: usize, mul: usize, modulo: usize, div: f32) -> Vec<f32> {
    (0..n).map(|i| ((i * mul) % modulo) as f32 - (modulo / 2) as f32).map(|v| v / div).collect()
}

#[test]
fn gradients_by_finite_differences() {
    use FusedBatchNormVersion::*;
    for (shape, fmt) in [(vec![2, 3, 2, 3], "NHWC"), (vec![2, 3, 2, 2], "NCHW"), (vec![2, 3, 1, 2, 2], "NCDHW")] {
        let n = shape.iter().product();
        let inputs =
            vec![(shape.clone(), pattern(n, 7, 23, 8.0)), (vec![3], SCALE.to_vec()), (vec![3], OFFSET.to_vec())];
        for (training, version) in [(true, V3), (false, V3), (true, V1), (false, V2)] {
            if version != V3 && fmt == "NCDHW" {
                continue;
            }
            check_gradients_f32(&inputs, |s, x| {
                let (m, v) = (vec3(s, MEAN), vec3(s, VAR));
                let o = FusedBatchNormOptions { version, exponential_avg_factor: 0.5, ..opts(training, fmt) };
                ops::fused_batch_norm(s, &x[0], &x[1], &x[2], Some(&m), Some(&v), &o).unwrap().output(0).unwrap()
            });
        }
    }
}

#[test]
fn shapes_and_errors() {
    let g = Graph::new();
    let s = g.scope();
    let sc = vec3(&s, SCALE);
    let bn = |x: &Output, scale: &Output, mean: &Output, o: &FusedBatchNormOptions| {
        ops::fused_batch_norm(&s, x, scale, &sc, Some(mean), Some(mean), o)
    };
    let x = ops::placeholder(&s.named("x"), DType::Float, [None, Some(4), Some(4), None]).unwrap();
    let op = bn(&x, &sc, &sc, &opts(false, "NHWC")).unwrap();
    assert_eq!(op.output(0).unwrap().shape(), Shape::partial(&[None, Some(4), Some(4), Some(3)]));
    let err = |r: tensorgraph::Result<Operation>, want: &str| {
        let e = r.unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument, "{e}");
        assert!(e.message.contains(want), "{e}\nwanted: {want}");
    };
    let x = ops::placeholder(&s.named("xc"), DType::Float, [None, Some(4), Some(4), Some(3)]).unwrap();
    let x3 = c(&s, &[2, 2, 3], &[0.0; 12]);
    err(bn(&x3, &sc, &sc, &opts(false, "NHWC")), "Shape must be rank 4 but is rank 3");
    err(bn(&x, &c(&s, &[1, 3], SCALE), &sc, &opts(false, "NHWC")), "Shape must be rank 1 but is rank 2");
    err(bn(&x, &c(&s, &[4], &[1.0; 4]), &sc, &opts(false, "NHWC")), "Dimensions must be equal, but are 3 and 4");
    let empty = c(&s, &[0], &[]);
    err(bn(&x, &sc, &empty, &opts(false, "NHWC")), "Dimensions must be equal, but are 3 and 0");
    let f = FusedBatchNormOptions { exponential_avg_factor: 0.5, ..opts(true, "NHWC") };
    err(bn(&x, &sc, &empty, &f), "Dimensions must be equal, but are 3 and 0");
    bn(&x, &sc, &empty, &opts(true, "NHWC")).unwrap();
    err(bn(&x, &sc, &sc, &opts(false, "NCWH")), "NCWH");
    // 5-d formats are V3's
    let v2 = FusedBatchNormOptions { version: FusedBatchNormVersion::V2, ..opts(false, "NDHWC") };
    err(bn(&x, &sc, &sc, &v2), "NDHWC");
    // float64 is not a dtype TensorFlow registers
    let xd = ops::placeholder(&s, DType::Double, [1, 1, 1, 3]).unwrap();
    let scd = ops::constant(&s, Tensor::vector(vec![1.0f64; 3])).unwrap();
    err(bn(&xd, &scd, &scd, &opts(false, "NHWC")), "double");
    // the builder needs mean and variance in inference
    let e = ops::fused_batch_norm(&s, &x, &sc, &sc, None, None, &opts(false, "NHWC")).unwrap_err();
    assert!(e.message.contains("Both `mean` and `variance` must be a 1D tensor"), "{e}");
    // at run time: a fed x with 4 channels
    let xu = ops::placeholder(&s, DType::Float, Shape::unknown()).unwrap();
    let op = bn(&xu, &sc, &sc, &opts(false, "NHWC")).unwrap();
    let y = op.output(0).unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess.fetch(&[(&xu, Tensor::new(&[1, 1, 1, 4], vec![0f32; 4]).unwrap())], &y).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("scale must have the same number of elements as the channels of x, got 3 and 4"), "{e}");
    let e = sess.fetch(&[(&xu, Tensor::new(&[1, 3], vec![0f32; 3]).unwrap())], &y).unwrap_err();
    assert!(e.message.contains("x must be 4-dimensional"), "{e}");
    // the gradient op's own gradient is TensorFlow's _FusedBatchNormGradGrad, not implemented
    let xs = c(&s, &[1, 1, 2, 3], &[0.5; 6]);
    let y = bn(&xs, &sc, &sc, &opts(true, "NHWC")).unwrap().output(0).unwrap();
    let dx = gradients(&[y], std::slice::from_ref(&xs), None).unwrap()[0].clone().unwrap();
    let e = gradients(&[dx], std::slice::from_ref(&xs), None).unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("FusedBatchNormGradV3"), "{e}");
}

// ---- TensorFlow 2.21's values: scripts/nnops_reference.py batch_norm
/// shape [2, 3, 2, 3]
const X_NHWC: &[f32] = &[
    -1.375, -0.5, 0.375, 1.25, -0.75, 0.125, 1.0, -1.0, -0.125, 0.75, -1.25, -0.375, 0.5, 1.375, -0.625, 0.25, 1.125,
    -0.875, 0.0, 0.875, -1.125, -0.25, 0.625, -1.375, -0.5, 0.375, 1.25, -0.75, 0.125, 1.0, -1.0, -0.125, 0.75, -1.25,
    -0.375, 0.5,
];
/// shape [2, 3, 2, 2]
const X_NCHW: &[f32] = &[
    -1.375, -0.5, 0.375, 1.25, -0.75, 0.125, 1.0, -1.0, -0.125, 0.75, -1.25, -0.375, 0.5, 1.375, -0.625, 0.25, 1.125,
    -0.875, 0.0, 0.875, -1.125, -0.25, 0.625, -1.375,
];
/// shape [2, 3, 2, 3]
const INF_NHWC_0: &[f32] = &[
    -3.2377436,
    0.3632449,
    0.15950453,
    2.325162,
    0.46527296,
    -0.19396049,
    1.7953618,
    0.56730103,
    -0.5474255,
    1.2655612,
    0.6693291,
    -0.9008906,
    0.7357607,
    -0.40196562,
    -1.2543557,
    0.2059601,
    -0.29993755,
    -1.6078207,
    -0.32384044,
    -0.19790946,
    -1.9612856,
    -0.8536409,
    -0.09588139,
    -2.3147507,
    -1.3834414,
    0.0061466843,
    1.3966322,
    -1.913242,
    0.10817475,
    1.0431671,
    -2.4430428,
    0.21020281,
    0.6897021,
    -2.9728434,
    0.31223089,
    0.33623707,
];
/// shape [3]
const INF_NHWC_1: &[f32] = &[0.2, -0.1, 0.05];
/// shape [3]
const INF_NHWC_2: &[f32] = &[0.5, 1.5, 2.0];
/// shape [2, 3, 2, 3]
const TRAIN_NHWC_0: &[f32] = &[
    -2.1306968,
    0.531885,
    0.72118455,
    2.5150518,
    0.6850627,
    0.10847384,
    2.0725996,
    0.8382403,
    -0.50423694,
    1.6301473,
    0.99141806,
    -1.1169477,
    1.1876951,
    -0.6169477,
    -1.7296584,
    0.7452429,
    -0.46377003,
    -2.342369,
    0.3027906,
    -0.3105923,
    -2.95508,
    -0.13966161,
    -0.1574146,
    -3.5677907,
    -0.58211386,
    -0.0042369217,
    2.8656723,
    -1.0245662,
    0.14894077,
    2.2529614,
    -1.4670184,
    0.30211848,
    1.6402509,
    -1.9094704,
    0.45529616,
    1.02754,
];
/// shape [3]
const TRAIN_NHWC_1: &[f32] = &[-0.114583336, 0.041666668, -0.041666668];
/// shape [3]
const TRAIN_NHWC_2: &[f32] = &[0.7825522, 0.7253788, 0.7253788];
/// shape [3]
const TRAIN_NHWC_3: &[f32] = &[-0.114583336, 0.041666668, -0.041666668];
/// shape [3]
const TRAIN_NHWC_4: &[f32] = &[0.71733946, 0.6649306, 0.6649306];
/// shape [2, 3, 2, 3]
const TRAIN_NHWC_F025_0: &[f32] = &[
    -2.1306968,
    0.531885,
    0.72118455,
    2.5150518,
    0.6850627,
    0.10847384,
    2.0725996,
    0.8382403,
    -0.50423694,
    1.6301473,
    0.99141806,
    -1.1169477,
    1.1876951,
    -0.6169477,
    -1.7296584,
    0.7452429,
    -0.46377003,
    -2.342369,
    0.3027906,
    -0.3105923,
    -2.95508,
    -0.13966161,
    -0.1574146,
    -3.5677907,
    -0.58211386,
    -0.0042369217,
    2.8656723,
    -1.0245662,
    0.14894077,
    2.2529614,
    -1.4670184,
    0.30211848,
    1.6402509,
    -1.9094704,
    0.45529616,
    1.02754,
];
/// shape [3]
const TRAIN_NHWC_F025_1: &[f32] = &[0.12135417, -0.06458334, 0.027083334];
/// shape [3]
const TRAIN_NHWC_F025_2: &[f32] = &[0.57063806, 1.3063447, 1.6813447];
/// shape [3]
const TRAIN_NHWC_F025_3: &[f32] = &[-0.114583336, 0.041666668, -0.041666668];
/// shape [3]
const TRAIN_NHWC_F025_4: &[f32] = &[0.71733946, 0.6649306, 0.6649306];
/// shape [2, 3, 2, 2]
const TRAIN_NCHW_0: &[f32] = &[
    -2.4985785,
    -1.0136764,
    0.47122547,
    1.9561274,
    0.69669574,
    0.16179264,
    -0.37311053,
    0.8495252,
    0.39473224,
    2.683262,
    -2.547663,
    -0.2591334,
    0.6833544,
    2.1682563,
    -1.2258053,
    0.25909662,
    -0.44952524,
    0.7731105,
    0.23820737,
    -0.29669577,
    -2.2207303,
    0.06779942,
    2.3563292,
    -2.8745959,
];
/// shape [3]
const TRAIN_NCHW_1: &[f32] = &[0.15625, 0.0625, -0.390625];
/// shape [3]
const TRAIN_NCHW_2: &[f32] = &[0.8917411, 0.76339287, 0.6671317];
/// shape [3]
const TRAIN_NCHW_3: &[f32] = &[0.15625, 0.0625, -0.390625];
/// shape [3]
const TRAIN_NCHW_4: &[f32] = &[0.78027344, 0.66796875, 0.58374023];
/// shape [2, 3, 2, 2]
const INF_NCHW_0: &[f32] = &[
    -3.2377436,
    -1.3834414,
    0.47086036,
    2.325162,
    0.46527296,
    0.10817475,
    -0.2489235,
    0.56730103,
    -0.5474255,
    0.6897021,
    -2.1380181,
    -0.9008906,
    0.7357607,
    2.5900624,
    -1.6483417,
    0.2059601,
    -0.29993755,
    0.51628697,
    0.15918878,
    -0.19790946,
    -1.9612856,
    -0.72415805,
    0.5129696,
    -2.3147507,
];
/// shape [3]
const INF_NCHW_1: &[f32] = &[0.2, -0.1, 0.05];
/// shape [3]
const INF_NCHW_2: &[f32] = &[0.5, 1.5, 2.0];
/// shape [2, 3, 2, 3]
const TRAIN_NHWC_HALF_0: &[f32] = &[
    -2.1308594,
    0.5317383,
    0.7211914,
    2.515625,
    0.6850586,
    0.10845947,
    2.0722656,
    0.8383789,
    -0.50439453,
    1.6298828,
    0.99121094,
    -1.1171875,
    1.1875,
    -0.6171875,
    -1.7294922,
    0.7451172,
    -0.4638672,
    -2.3417969,
    0.30273438,
    -0.31054688,
    -2.9550781,
    -0.13964844,
    -0.1574707,
    -3.5683594,
    -0.58203125,
    -0.0042381287,
    2.8652344,
    -1.0244141,
    0.14892578,
    2.2539062,
    -1.4667969,
    0.30200195,
    1.640625,
    -1.9091797,
    0.45532227,
    1.0273438,
];
/// shape [3]
const TRAIN_NHWC_HALF_1: &[f32] = &[-0.114583336, 0.041666668, -0.041666668];
/// shape [3]
const TRAIN_NHWC_HALF_2: &[f32] = &[0.7825522, 0.7253788, 0.7253788];
/// shape [3]
const TRAIN_NHWC_HALF_3: &[f32] = &[-0.114583336, 0.041666668, -0.041666668];
/// shape [3]
const TRAIN_NHWC_HALF_4: &[f32] = &[0.71733946, 0.6649306, 0.6649306];
/// shape [2, 3, 2, 2, 2]
const X_NCDHW: &[f32] = &[
    -1.125, -0.5, 0.125, 0.75, -1.0, -0.375, 0.25, 0.875, -0.875, -0.25, 0.375, 1.0, -0.75, -0.125, 0.5, 1.125, -0.625,
    0.0, 0.625, -1.125, -0.5, 0.125, 0.75, -1.0, -0.375, 0.25, 0.875, -0.875, -0.25, 0.375, 1.0, -0.75, -0.125, 0.5,
    1.125, -0.625, 0.0, 0.625, -1.125, -0.5, 0.125, 0.75, -1.0, -0.375, 0.25, 0.875, -0.875, -0.25,
];
/// shape [2, 3, 2, 2, 2]
const TRAIN_NCDHW_0: &[f32] = &[
    -2.2552576,
    -0.88989085,
    0.47547585,
    1.8408426,
    -1.9821843,
    -0.61681753,
    0.7485492,
    2.113916,
    0.8632688,
    0.41737384,
    -0.028521195,
    -0.4744162,
    0.7740898,
    0.3281948,
    -0.117700204,
    -0.56359524,
    -1.7699144,
    0.1267493,
    2.023413,
    -3.287245,
    -1.3905816,
    0.506082,
    2.4027457,
    -2.9079125,
    -0.61681753,
    0.7485492,
    2.113916,
    -1.7091109,
    -0.3437442,
    1.0216225,
    2.386989,
    -1.4360375,
    0.3281948,
    -0.117700204,
    -0.56359524,
    0.68491083,
    0.23901582,
    -0.20687918,
    1.0416268,
    0.5957318,
    0.506082,
    2.4027457,
    -2.9079125,
    -1.0112488,
    0.8854148,
    2.7820785,
    -2.5285797,
    -0.63191617,
];
/// shape [3]
const TRAIN_NCDHW_1: &[f32] = &[-0.046875, 0.0546875, -0.140625];
/// shape [3]
const TRAIN_NCDHW_2: &[f32] = &[0.50182295, 0.5228516, 0.4622396];
/// shape [2, 3, 2, 3]
const DY_NHWC: &[f32] = &[
    -2.0, -0.75, 0.5, 1.75, -1.25, 0.0, 1.25, -1.75, -0.5, 0.75, 2.0, -1.0, 0.25, 1.5, -1.5, -0.25, 1.0, -2.0, -0.75,
    0.5, 1.75, -1.25, 0.0, 1.25, -1.75, -0.5, 0.75, 2.0, -1.0, 0.25, 1.5, -1.5, -0.25, 1.0, -2.0, -0.75,
];
/// shape [2, 3, 2, 2]
const DY_NCHW: &[f32] = &[
    -2.0, -0.75, 0.5, 1.75, -1.25, 0.0, 1.25, -1.75, -0.5, 0.75, 2.0, -1.0, 0.25, 1.5, -1.5, -0.25, 1.0, -2.0, -0.75,
    0.5, 1.75, -1.25, 0.0, 1.25,
];
/// shape [2, 3, 2, 3]
const GRAD_TRAIN_NHWC_0: &[f32] = &[
    -2.8755689,
    0.13833152,
    0.8774433,
    2.0642128,
    0.31725165,
    0.17529729,
    1.2910142,
    0.4961718,
    -0.52684873,
    0.5178156,
    -1.0593852,
    -1.2289947,
    -0.25538293,
    -0.5914011,
    -1.9311407,
    -1.0285815,
    -0.41248095,
    -2.6332865,
    -1.8017801,
    -0.23356083,
    2.6734731,
    -2.5749786,
    -0.05464069,
    1.9713272,
    -3.3481772,
    0.12427945,
    1.2141639,
    4.8852334,
    0.30319956,
    0.51201797,
    4.112035,
    0.4821197,
    -0.19012804,
    3.3388362,
    0.6610398,
    -0.892274,
];
/// shape [3]
const GRAD_TRAIN_NHWC_1: &[f32] = &[4.5916033, 3.6219964, 0.22975251];
/// shape [3]
const GRAD_TRAIN_NHWC_2: &[f32] = &[2.5, -3.75, -1.5];
/// shape [2, 3, 2, 3]
const GRAD_INF_NHWC_0: &[f32] = &[
    -4.2384043,
    0.3060842,
    0.7069301,
    3.7086039,
    0.5101403,
    0.0,
    2.6490026,
    0.71419644,
    -0.7069301,
    1.5894016,
    -0.8162245,
    -1.4138602,
    0.52980053,
    -0.6121684,
    -2.1207902,
    -0.52980053,
    -0.40811226,
    -2.8277204,
    -1.5894016,
    -0.20405613,
    2.4742553,
    -2.6490026,
    -0.0,
    1.7673253,
    -3.7086039,
    0.20405613,
    1.0603951,
    4.2384043,
    0.40811226,
    0.35346505,
    3.1788032,
    0.6121684,
    -0.35346505,
    2.1192021,
    0.8162245,
    -1.0603951,
];
/// shape [3]
const GRAD_INF_NHWC_1: &[f32] = &[4.591605, 3.6219966, 0.22975236];
/// shape [3]
const GRAD_INF_NHWC_2: &[f32] = &[2.5, -3.75, -1.5];
/// shape [2, 3, 2, 2]
const GRAD_TRAIN_NCHW_0: &[f32] = &[
    3.1079192,
    1.7492144,
    0.39050972,
    -0.968195,
    0.20356336,
    -0.09989541,
    -0.40335417,
    0.3485676,
    -1.314796,
    0.84087056,
    1.7205586,
    -2.1326807,
    -0.7118204,
    -2.0705252,
    0.7323425,
    -0.62636226,
    -0.27180016,
    0.48012164,
    0.17666285,
    -0.1267959,
    1.422571,
    -2.4306684,
    -0.2750019,
    0.60468626,
];
/// shape [3]
const GRAD_TRAIN_NCHW_1: &[f32] = &[12.238393, 5.672761, -3.5523236];
/// shape [3]
const GRAD_TRAIN_NCHW_2: &[f32] = &[-0.5, -3.0, 3.0];
/// shape [2, 3, 2, 3]
const SYM_TRAIN_NHWC_0: &[f32] = &[
    -2.8637762,
    0.061701413,
    1.5078164,
    1.5975769,
    0.27281392,
    0.2967712,
    0.91985625,
    0.48392645,
    -0.9142741,
    0.24213564,
    -1.9089818,
    -2.1253192,
    -0.43558493,
    -0.6025763,
    -3.3363645,
    -1.1133056,
    -0.3914638,
    -4.54741,
    -1.7910264,
    -0.18035129,
    4.657628,
    -2.4687471,
    0.03076123,
    3.4465828,
    -3.1464677,
    0.24187377,
    2.0702102,
    3.6975002,
    0.4529863,
    0.859165,
    3.0197794,
    0.6640988,
    -0.35188022,
    2.3420587,
    0.8752113,
    -1.5629255,
];
/// shape [3]
const SYM_TRAIN_NHWC_1: &[f32] = &[4.7625065, 6.0888133, 0.22976607];
/// shape [3]
const SYM_TRAIN_NHWC_2: &[f32] = &[2.5, -3.75, -1.5];
/// shape [2, 3, 2, 2]
const SYM_INF_NCHW_0: &[f32] = &[
    -4.2384043,
    -1.5894016,
    1.0596011,
    3.7086039,
    0.5101403,
    -0.0,
    -0.5101403,
    0.71419644,
    -0.7069301,
    1.0603951,
    2.8277204,
    -1.4138602,
    0.52980053,
    3.1788032,
    -3.1788032,
    -0.52980053,
    -0.40811226,
    0.8162245,
    0.3060842,
    -0.20405613,
    2.4742553,
    -1.7673253,
    0.0,
    1.7673253,
];
/// shape [3]
const SYM_INF_NCHW_1: &[f32] = &[12.238394, 5.67276, -3.5523236];
/// shape [3]
const SYM_INF_NCHW_2: &[f32] = &[-0.5, -3.0, 3.0];
