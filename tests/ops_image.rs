//! ResizeBilinear and ResizeNearestNeighbor (align_corners, half_pixel_centers) and their
//! gradient ops: values as TensorFlow 2.21 gives them (`scripts/gen_ops_arrays.py values`,
//! cases `bilinear_*` and `nearest_*`), errors, and finite-difference gradient checks.

mod common;
use common::{assert_close, check_gradients, one, weighted};
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

fn run(out: &Output) -> tensorgraph::Result<Tensor> {
    let sess = Session::new(out.graph()).unwrap();
    Ok(sess.run(&[], &[out], &[])?.remove(0))
}

/// TensorFlow's `arange(n) / d` as float32 of `shape`.
fn ramp(s: &Scope, shape: &[usize], d: f32) -> Output {
    let n: usize = shape.iter().product();
    ops::constant(s, Tensor::new(shape, (0..n).map(|v| v as f32 / d).collect()).unwrap()).unwrap()
}

fn raw(s: &Scope, op: &str, a: &Output, b: &Output, ac: bool, hp: bool) -> Output {
    let t = if op == "ResizeBilinearGrad" { b.dtype() } else { a.dtype() };
    s.op(op, op)
        .input(a)
        .input(b)
        .attr("T", t)
        .attr("align_corners", ac)
        .attr("half_pixel_centers", hp)
        .build_output()
        .unwrap()
}

#[test]
fn resize_values_match_tensorflow() {
    let g = Graph::new();
    let s = g.scope();
    let img = ramp(&s, &[1, 3, 3, 2], 2.0);
    let grads = ramp(&s, &[1, 4, 5, 2], 4.0);
    let size = ops::constant(&s, Tensor::vector(vec![3i32, 3])).unwrap();
    #[rustfmt::skip]
    #[allow(clippy::type_complexity)]
    let cases: [(bool, bool, Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>); 3] = [
        (false, false, [0.0, 0.5, 0.6000000238418579, 1.100000023841858, 1.2000000476837158, 1.7000000476837158, 1.8000000715255737, 2.3000001907348633, 2.0, 2.5, 2.25, 2.75, 2.8499999046325684, 3.3499999046325684, 3.4499998092651367, 3.9499998092651367, 4.050000190734863, 4.550000190734863, 4.25, 4.75, 4.5, 5.0, 5.099999904632568, 5.599999904632568, 5.699999809265137, 6.199999809265137, 6.300000190734863, 6.800000190734863, 6.5, 7.0, 6.0, 6.5, 6.599999904632568, 7.099999904632568, 7.199999809265137, 7.699999809265137, 7.800000190734863, 8.300000190734863, 8.0, 8.5].to_vec(), [0.0, 0.5, 0.0, 0.5, 1.0, 1.5, 1.0, 1.5, 2.0, 2.5, 0.0, 0.5, 0.0, 0.5, 1.0, 1.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 3.0, 3.5, 4.0, 4.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 6.0, 6.5, 7.0, 7.5, 7.0, 7.5, 8.0, 8.5].to_vec(), [0.0, 0.5, 1.5, 2.0, 4.5, 5.0, 6.0, 6.5].to_vec(), [1.125, 1.5625, 2.749999523162842, 3.249999761581421, 5.5, 6.124999523162842, 6.375, 6.8125, 8.749999046325684, 9.249999046325684, 13.000000953674316, 13.625, 14.300000190734863, 14.824999809265137, 18.10000228881836, 18.699996948242188, 25.10000228881836, 25.85000228881836].to_vec(), [6.0, 7.0, 10.0, 11.0, 6.5, 7.0, 10.5, 11.0, 12.5, 13.0, 7.0, 7.25, 15.5, 16.0, 17.5, 18.0, 9.5, 9.75].to_vec()),
        (true, false, [0.0, 0.5, 0.5, 1.0, 1.0, 1.5, 1.5, 2.0, 2.0, 2.5, 2.0, 2.5, 2.5, 3.0, 3.0, 3.5, 3.5, 4.0, 4.0, 4.5, 4.0, 4.5, 4.5, 5.0, 5.0, 5.5, 5.5, 6.0, 6.0, 6.5, 6.0, 6.5, 6.5, 7.0, 7.0, 7.5, 7.5, 8.0, 8.0, 8.5].to_vec(), [0.0, 0.5, 1.0, 1.5, 1.0, 1.5, 2.0, 2.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 4.0, 4.5, 5.0, 5.5, 5.0, 5.5, 3.0, 3.5, 4.0, 4.5, 4.0, 4.5, 5.0, 5.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 7.0, 7.5, 8.0, 8.5, 8.0, 8.5].to_vec(), [0.0, 0.5, 2.0, 2.5, 6.0, 6.5, 8.0, 8.5].to_vec(), [1.5833332538604736, 2.0833332538604736, 4.3333330154418945, 5.0, 4.916666507720947, 5.416666507720947, 7.8333330154418945, 8.333333015441895, 12.666666030883789, 13.333333015441895, 11.166666030883789, 11.666666030883789, 14.083333969116211, 14.583333969116211, 21.0, 21.666667938232422, 17.416667938232422, 17.916667938232422].to_vec(), [0.0, 0.25, 1.5, 2.0, 3.5, 4.0, 7.5, 8.0, 18.0, 19.0, 22.0, 23.0, 7.5, 7.75, 16.5, 17.0, 18.5, 19.0].to_vec()),
        (false, true, [0.0, 0.5, 0.40000003576278687, 0.9000000357627869, 1.0, 1.5, 1.6000001430511475, 2.1000001430511475, 2.0, 2.5, 1.875, 2.375, 2.2750000953674316, 2.7750000953674316, 2.875, 3.375, 3.4750003814697266, 3.9750003814697266, 3.875, 4.375, 4.125, 4.625, 4.525000095367432, 5.025000095367432, 5.125, 5.625, 5.725000381469727, 6.225000381469727, 6.125, 6.625, 6.0, 6.5, 6.400000095367432, 6.900000095367432, 7.0, 7.5, 7.600000381469727, 8.100000381469727, 8.0, 8.5].to_vec(), [0.0, 0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 2.0, 2.5, 3.0, 3.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 5.0, 5.5, 3.0, 3.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 5.0, 5.5, 6.0, 6.5, 6.0, 6.5, 7.0, 7.5, 8.0, 8.5, 8.0, 8.5].to_vec(), [1.0, 1.5, 2.5, 3.0, 5.5, 6.0, 7.0, 7.5].to_vec(), [1.9124999046325684, 2.4625000953674316, 4.16249942779541, 4.781249523162842, 5.487500190734863, 6.037500858306885, 7.875, 8.375, 10.687499046325684, 11.249999046325684, 11.125, 11.625000953674316, 15.41249942779541, 15.962499618530273, 19.350000381469727, 19.968748092651367, 18.98750114440918, 19.537504196166992].to_vec(), [0.5, 1.0, 1.0, 1.25, 3.5, 4.0, 16.0, 17.0, 9.5, 10.0, 22.0, 23.0, 15.5, 16.0, 8.5, 8.75, 18.5, 19.0].to_vec()),
    ];
    for (ac, hp, bil, near, down, bgrad, ngrad) in cases {
        let tag = format!("align_corners={ac} half_pixel_centers={hp}");
        let y = ops::resize_bilinear(&s, &img, [4, 5], ac, hp).unwrap();
        assert_eq!(y.shape(), Shape::known(&[1, 4, 5, 2]));
        assert_eq!(y.dtype(), DType::Float);
        assert_close(&format!("bilinear {tag}"), &run(&y).unwrap().to_f64_vec().unwrap(), &bil);
        let y = ops::resize_nearest_neighbor(&s, &img, [4, 5], ac, hp).unwrap();
        assert_eq!(run(&y).unwrap().to_f64_vec().unwrap(), near, "nearest {tag}");
        let y = ops::resize_bilinear(&s, &img, [2, 2], ac, hp).unwrap();
        assert_close(&format!("bilinear down {tag}"), &run(&y).unwrap().to_f64_vec().unwrap(), &down);
        let y = raw(&s, "ResizeBilinearGrad", &grads, &img, ac, hp);
        assert_eq!(y.shape(), Shape::known(&[1, 3, 3, 2]));
        assert_close(&format!("bilinear grad {tag}"), &run(&y).unwrap().to_f64_vec().unwrap(), &bgrad);
        let y = raw(&s, "ResizeNearestNeighborGrad", &grads, &size, ac, hp);
        assert_eq!(y.shape(), Shape::known(&[1, 3, 3, 2]));
        assert_close(&format!("nearest grad {tag}"), &run(&y).unwrap().to_f64_vec().unwrap(), &ngrad);
    }
    let g2 = Graph::new();
    let s2 = g2.scope();
    let y = ops::resize_bilinear(&s2, &ramp(&s2, &[1, 2, 2, 1], 1.0), [3, 3], false, false).unwrap();
    assert_eq!(y.name(), "ResizeBilinear:0");
    assert_eq!(g2.operation_by_name("ResizeBilinear/size").unwrap().op_type(), "Const");
    // int inputs: bilinear gives float32, nearest keeps the dtype
    let ints = ops::constant(&s2, Tensor::new(&[1, 2, 2, 1], vec![1i32, 2, 3, 4]).unwrap()).unwrap();
    assert_eq!(ops::resize_bilinear(&s2, &ints, [3, 3], false, false).unwrap().dtype(), DType::Float);
    let n = ops::resize_nearest_neighbor(&s2, &ints, [1, 1], false, false).unwrap();
    assert_eq!(run(&n).unwrap().to_vec::<i32>().unwrap(), vec![1]);
}

#[test]
fn resize_errors() {
    let g = Graph::new();
    let s = g.scope();
    let img = ramp(&s, &[1, 2, 2, 1], 1.0);
    let y = ops::resize_bilinear(&s, &img, [3, 3], true, true).unwrap();
    let e = run(&y).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("If half_pixel_centers is True, align_corners must be False."), "{}", e.message);
    let e = ops::resize_bilinear(&s, &ramp(&s, &[2, 2, 1], 1.0), [3, 3], false, false).unwrap_err();
    assert!(e.message.contains("Shape must be rank 4 but is rank 3"), "{}", e.message);
    let e = ops::resize_nearest_neighbor(&s, &img, [0, 3], false, false).unwrap_err();
    assert!(e.message.contains("output dimensions must be positive"), "{}", e.message);
    let size =
        ops::placeholder_with_default(&s, &ops::constant(&s, Tensor::vector(vec![0i32, 3])).unwrap(), [2]).unwrap();
    let y = raw(&s, "ResizeBilinear", &img, &size, false, false);
    assert!(run(&y).unwrap_err().message.contains("output dimensions must be positive"));
}

#[test]
fn resize_gradients_are_the_adjoints() {
    // nearest-neighbor keeps float64: finite differences
    let x = vec![one(&[2, 3, 4, 2], 1, -1.0, 1.0)];
    for (ac, hp) in [(false, false), (true, false), (false, true)] {
        for size in [[5, 7], [2, 3]] {
            check_gradients(&x, 1e-6, |s, x| {
                let y = ops::resize_nearest_neighbor(s, &x[0], size, ac, hp).unwrap();
                weighted(s, &y, &[2, size[0] as usize, size[1] as usize, 2], 4)
            });
        }
    }
    // bilinear computes in float32 and is linear: <resize(x), w> = <x, gradient(w)>
    for (ac, hp) in [(false, false), (true, false), (false, true)] {
        for size in [[5, 7], [2, 3]] {
            let g = Graph::new();
            let s = g.scope();
            let xv = common::values(48, 3, -1.0, 1.0).iter().map(|&v| v as f32).collect::<Vec<_>>();
            let x = ops::constant(&s, Tensor::new(&[2, 3, 4, 2], xv.clone()).unwrap()).unwrap();
            let y = ops::resize_bilinear(&s, &x, size, ac, hp).unwrap();
            let n = 2 * size[0] as usize * size[1] as usize * 2;
            let wv = common::values(n, 4, -1.0, 1.0).iter().map(|&v| v as f32).collect::<Vec<_>>();
            let w = ops::constant(&s, Tensor::new(&[2, size[0] as usize, size[1] as usize, 2], wv.clone()).unwrap())
                .unwrap();
            let loss = ops::reduce_sum(&s, &ops::mul(&s, &y, &w).unwrap(), None, false).unwrap();
            let gx =
                tensorgraph::train::gradients(std::slice::from_ref(&loss), &[x], None).unwrap()[0].clone().unwrap();
            assert_eq!(gx.op().op_type(), "ResizeBilinearGrad");
            let sess = Session::new(&g).unwrap();
            let r = sess.run(&[], &[&loss, &gx], &[]).unwrap();
            let lhs = r[0].to_vec::<f32>().unwrap()[0] as f64;
            let rhs: f64 = r[1].to_vec::<f32>().unwrap().iter().zip(&xv).map(|(&a, &b)| a as f64 * b as f64).sum();
            assert!((lhs - rhs).abs() < 1e-4 * lhs.abs().max(1.0), "{ac} {hp} {size:?}: {lhs} vs {rhs}");
        }
    }
}
