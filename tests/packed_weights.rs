//! Constant weights packed once for the matrix kernel (`ops/kernels/gemm_rten.rs`):
//! `Conv2D` and `MatMul` with a `Const` right operand give the values of the same product
//! with the weights fed, on 1 and 2 threads and on the runs after the first (the packed
//! copy reused); feeding the `Const` itself uses the fed value, not the packed copy.

use tensorgraph::ops;
use tensorgraph::{DType, Graph, Session, SessionOptions, Tensor};

/// Deterministic values in [-1, 1).
fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7919 + seed * 104_729) % 2003) as f32 / 1001.5 - 1.0).collect()
}

/// The model: a 3x3 SAME convolution of x [2, 14, 14, 64] with a constant filter
/// [3, 3, 64, 128], and a product of a [49, 512] with a constant [512, 256]; beside each,
/// the same op with its weights fed.
struct Model {
    g: Graph,
    x: tensorgraph::Output,
    a: tensorgraph::Output,
    filter_const: tensorgraph::Output,
    w_const: tensorgraph::Output,
    filter_fed: tensorgraph::Output,
    w_fed: tensorgraph::Output,
    conv_const: tensorgraph::Output,
    conv_fed: tensorgraph::Output,
    mm_const: tensorgraph::Output,
    mm_fed: tensorgraph::Output,
    filter: Tensor,
    w: Tensor,
}

fn model() -> Model {
    let g = Graph::new();
    let s = g.scope();
    let filter = Tensor::new(&[3, 3, 64, 128], values(3 * 3 * 64 * 128, 2)).unwrap();
    let w = Tensor::new(&[512, 256], values(512 * 256, 3)).unwrap();
    let x = ops::placeholder(&s.named("x"), DType::Float, [Some(2), Some(14), Some(14), Some(64)]).unwrap();
    let a = ops::placeholder(&s.named("a"), DType::Float, [Some(49), Some(512)]).unwrap();
    let filter_const = ops::constant(&s.named("filter"), filter.clone()).unwrap();
    let w_const = ops::constant(&s.named("w"), w.clone()).unwrap();
    let filter_fed =
        ops::placeholder(&s.named("filter_fed"), DType::Float, [Some(3), Some(3), Some(64), Some(128)]).unwrap();
    let w_fed = ops::placeholder(&s.named("w_fed"), DType::Float, [Some(512), Some(256)]).unwrap();
    let conv_const = ops::conv2d(&s.named("conv_const"), &x, &filter_const, &[1, 1, 1, 1], "SAME").unwrap();
    let conv_fed = ops::conv2d(&s.named("conv_fed"), &x, &filter_fed, &[1, 1, 1, 1], "SAME").unwrap();
    let mm_const = ops::matmul(&s.named("mm_const"), &a, &w_const).unwrap();
    let mm_fed = ops::matmul(&s.named("mm_fed"), &a, &w_fed).unwrap();
    Model { g, x, a, filter_const, w_const, filter_fed, w_fed, conv_const, conv_fed, mm_const, mm_fed, filter, w }
}

fn inputs() -> (Tensor, Tensor) {
    (
        Tensor::new(&[2, 14, 14, 64], values(2 * 14 * 14 * 64, 1)).unwrap(),
        Tensor::new(&[49, 512], values(49 * 512, 4)).unwrap(),
    )
}

/// Output [49, 256] row `i`, column `j` of a @ w, in float64.
fn product_at(a: &Tensor, w: &Tensor, i: usize, j: usize) -> f64 {
    let (a, w) = (a.as_slice::<f32>().unwrap(), w.as_slice::<f32>().unwrap());
    (0..512).map(|p| a[i * 512 + p] as f64 * w[p * 256 + j] as f64).sum()
}

fn scaled(t: &Tensor, by: f32) -> Tensor {
    Tensor::new(t.shape(), t.as_slice::<f32>().unwrap().iter().map(|v| v * by).collect()).unwrap()
}

#[test]
fn constant_weights_give_the_fed_weights_values_on_every_run_and_thread_count() {
    let m = model();
    let (x, a) = inputs();
    for threads in [1, 2] {
        let sess = Session::with_options(&m.g, &SessionOptions::with_threads(threads).unwrap()).unwrap();
        let fed = sess
            .run(
                &[(&m.x, x.clone()), (&m.a, a.clone()), (&m.filter_fed, m.filter.clone()), (&m.w_fed, m.w.clone())],
                &[&m.conv_fed, &m.mm_fed],
                &[],
            )
            .unwrap();
        for run in 0..3 {
            let got = sess.run(&[(&m.x, x.clone()), (&m.a, a.clone())], &[&m.conv_const, &m.mm_const], &[]).unwrap();
            assert_eq!(
                got[0].as_slice::<f32>().unwrap(),
                fed[0].as_slice::<f32>().unwrap(),
                "conv, {threads} thread(s), run {run}"
            );
            assert_eq!(
                got[1].as_slice::<f32>().unwrap(),
                fed[1].as_slice::<f32>().unwrap(),
                "matmul, {threads} thread(s), run {run}"
            );
        }
        let mm = fed[1].as_slice::<f32>().unwrap();
        for (i, j) in [(0, 0), (17, 100), (48, 255)] {
            let want = product_at(&a, &m.w, i, j);
            assert!((mm[i * 256 + j] as f64 - want).abs() <= 1e-4 * want.abs().max(1.0), "a @ w [{i}, {j}]");
        }
    }
}

#[test]
fn feeding_a_constant_weight_uses_the_fed_value_not_the_packed_copy() {
    let m = model();
    let (x, a) = inputs();
    for threads in [1, 2] {
        let sess = Session::with_options(&m.g, &SessionOptions::with_threads(threads).unwrap()).unwrap();
        let plain = sess.run(&[(&m.x, x.clone()), (&m.a, a.clone())], &[&m.conv_const, &m.mm_const], &[]).unwrap();
        // doubling is exact in float32, so the products double exactly
        let doubled = sess
            .run(
                &[
                    (&m.x, x.clone()),
                    (&m.a, a.clone()),
                    (&m.filter_const, scaled(&m.filter, 2.0)),
                    (&m.w_const, scaled(&m.w, 2.0)),
                ],
                &[&m.conv_const, &m.mm_const],
                &[],
            )
            .unwrap();
        for k in 0..2 {
            assert_eq!(
                doubled[k].as_slice::<f32>().unwrap(),
                scaled(&plain[k], 2.0).as_slice::<f32>().unwrap(),
                "output {k}"
            );
        }
        let again = sess.run(&[(&m.x, x.clone()), (&m.a, a.clone())], &[&m.conv_const, &m.mm_const], &[]).unwrap();
        assert_eq!(again[0].as_slice::<f32>().unwrap(), plain[0].as_slice::<f32>().unwrap());
        assert_eq!(again[1].as_slice::<f32>().unwrap(), plain[1].as_slice::<f32>().unwrap());
    }
}
