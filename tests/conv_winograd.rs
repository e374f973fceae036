//! 3x3 stride-1 convolutions with at least 64 input and output channels, which run as
//! Winograd F(2x2, 3x3) (`ops/conv/winograd.rs`): `Conv2D` (filter constant or fed) and
//! `_FusedConv2D` (bias + Relu, batch norm + Relu6) against a direct float64 convolution
//! for SAME, VALID and EXPLICIT padding, odd and even heights and widths (partial tiles),
//! batches, channel counts that are not multiples of the kernels' blocks, several chunks of
//! tiles; float32 within 1e-5 of the largest output, float64 within 1e-12; the values are
//! bitwise the same on 1, 2 and 4 threads.

mod common;
#[path = "common/conv.rs"]
mod conv;

use tensorgraph::graph::AttrValue;
use tensorgraph::{ops, DType, Graph, Output, Scope, Session, SessionOptions, Tensor};

/// One convolution: input `[n, h, w, c]`, `o` output channels, padding (and the explicit
/// paddings `[top, bottom, left, right]` for EXPLICIT).
#[derive(Clone, Copy, Debug)]
struct Case {
    n: usize,
    h: usize,
    w: usize,
    c: usize,
    o: usize,
    padding: &'static str,
    explicit: [usize; 4],
}

const fn case(n: usize, h: usize, w: usize, c: usize, o: usize, padding: &'static str, explicit: [usize; 4]) -> Case {
    Case { n, h, w, c, o, padding, explicit }
}

const CASES: &[Case] = &[
    // odd height and width: partial tiles on the bottom and right
    case(1, 9, 11, 64, 65, "SAME", [0; 4]),
    case(2, 10, 12, 67, 64, "VALID", [0; 4]),
    case(3, 7, 10, 72, 83, "EXPLICIT", [2, 1, 0, 3]),
    // one output pixel: below Winograd's smallest output side, the im2col product
    case(1, 3, 3, 64, 64, "VALID", [0; 4]),
    // several chunks of tiles
    case(2, 40, 37, 64, 72, "SAME", [0; 4]),
];

impl Case {
    /// (top, left) padding and the output height and width.
    fn geometry(&self) -> (usize, usize, usize, usize) {
        match self.padding {
            "SAME" => (1, 1, self.h, self.w),
            "VALID" => (0, 0, self.h - 2, self.w - 2),
            _ => {
                let [t, b, l, r] = self.explicit;
                (t, l, self.h + t + b - 2, self.w + l + r - 2)
            }
        }
    }

    /// The direct convolution in float64, `[n, oh, ow, o]`.
    fn reference(&self, x: &[f64], f: &[f64]) -> Vec<f64> {
        let pad = match self.padding {
            "SAME" => [1; 4],
            "VALID" => [0; 4],
            _ => self.explicit,
        };
        let (n, h, w, c, o) = (self.n, self.h, self.w, self.c, self.o);
        conv::Conv { n, h, w, c, o, k: 3, stride: 1, dilation: 1, pad }.reference(x, f)
    }

    fn input_shape(&self) -> [usize; 4] {
        [self.n, self.h, self.w, self.c]
    }

    fn filter_shape(&self) -> [usize; 4] {
        [3, 3, self.c, self.o]
    }
}

/// The window attrs of `case` on an op being built.
fn window<'a>(b: tensorgraph::graph::OpBuilder<'a>, case: &Case) -> tensorgraph::graph::OpBuilder<'a> {
    let b = b.attr("strides", AttrValue::ListInt(vec![1, 1, 1, 1])).attr("padding", case.padding);
    if case.padding == "EXPLICIT" {
        let [t, bo, l, r] = case.explicit.map(|v| v as i64);
        b.attr("explicit_paddings", AttrValue::ListInt(vec![0, 0, t, bo, l, r, 0, 0]))
    } else {
        b
    }
}

fn tensor(dtype: DType, shape: &[usize], v: &[f64]) -> Tensor {
    match dtype {
        DType::Float => Tensor::new(shape, v.iter().map(|&x| x as f32).collect::<Vec<_>>()).unwrap(),
        _ => Tensor::new(shape, v.to_vec()).unwrap(),
    }
}

/// The graph of `case`: input placeholder `x`, Conv2D with a constant filter, Conv2D with
/// the filter fed (`f`), _FusedConv2D with a bias and Relu, _FusedConv2D with a batch norm
/// and Relu6; the values of the filter, bias and batch norm (scale, offset, mean, variance).
struct Model {
    g: Graph,
    x: Output,
    f: Output,
    outputs: [Output; 4],
    filter: Vec<f64>,
    bias: Vec<f64>,
    bn: [Vec<f64>; 4],
}

const EPSILON: f32 = 0.001;

fn model(case: &Case, dtype: DType, seed: u64) -> Model {
    let g = Graph::new();
    let s = g.scope();
    let (c, o) = (case.c, case.o);
    let filter = common::values(9 * c * o, seed + 1, -0.5, 0.5);
    let bias = common::values(o, seed + 2, -1.0, 1.0);
    let bn = [
        common::values(o, seed + 3, 0.5, 1.5),
        common::values(o, seed + 4, -1.0, 1.0),
        common::values(o, seed + 5, -1.0, 1.0),
        common::values(o, seed + 6, 0.5, 2.0),
    ];
    let x = ops::placeholder(&s.named("x"), dtype, case.input_shape().map(Some)).unwrap();
    let f = ops::placeholder(&s.named("f"), dtype, case.filter_shape().map(Some)).unwrap();
    let k = |s: &Scope, shape: &[usize], v: &[f64]| ops::constant(s, tensor(dtype, shape, v)).unwrap();
    let fc = k(&s.named("filter"), &case.filter_shape(), &filter);
    let conv = |name: &str, filter: &Output| {
        window(s.op("Conv2D", name).input(&x).input(filter).attr("T", dtype), case).build_output().unwrap()
    };
    let fused = |name: &str, args: &[Output], ops: [&str; 2]| {
        let mut b = s.op("_FusedConv2D", name).input(&x).input(&fc).attr("T", dtype);
        for a in args {
            b = b.input(a);
        }
        let ops = AttrValue::ListString(ops.iter().map(|o| o.as_bytes().to_vec()).collect());
        let b = b.attr("fused_ops", ops).attr("num_args", AttrValue::Int(args.len() as i64));
        let b = b.attr("TArgs", AttrValue::ListType(vec![dtype; args.len()]));
        window(b.attr("epsilon", AttrValue::Float(EPSILON)), case).build_output().unwrap()
    };
    let bias_c = k(&s.named("bias"), &[o], &bias);
    let names = ["scale", "offset", "mean", "variance"];
    let bn_c: Vec<Output> = names.iter().zip(&bn).map(|(n, v)| k(&s.named(n), &[o], v)).collect();
    let outputs = [
        conv("conv_const", &fc),
        conv("conv_fed", &f),
        fused("bias_relu", &[bias_c], ["BiasAdd", "Relu"]),
        fused("bn_relu6", &bn_c, ["FusedBatchNorm", "Relu6"]),
    ];
    Model { g, x, f, outputs, filter, bias, bn }
}

/// Runs the model's four outputs on `threads` threads, twice (the second run reads the
/// kept filter transform); both runs must agree bitwise.
fn run(m: &Model, case: &Case, dtype: DType, x: &[f64], threads: usize) -> Vec<Tensor> {
    let sess = Session::with_options(&m.g, &SessionOptions::with_threads(threads).unwrap()).unwrap();
    let feeds = [(&m.x, tensor(dtype, &case.input_shape(), x)), (&m.f, tensor(dtype, &case.filter_shape(), &m.filter))];
    let fetches: Vec<&Output> = m.outputs.iter().collect();
    let first = sess.run(&feeds, &fetches, &[]).unwrap();
    let second = sess.run(&feeds, &fetches, &[]).unwrap();
    assert_eq!(first, second, "{case:?}: a second run");
    first
}

/// Largest |got - want| over the largest |want|.
fn rel_err(got: &Tensor, want: &[f64]) -> f64 {
    let got = got.to_f64_vec().unwrap();
    assert_eq!(got.len(), want.len());
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-30);
    got.iter().zip(want).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max) / scale
}

fn check(dtype: DType, tol: f64) {
    for (i, case) in CASES.iter().enumerate() {
        let seed = 100 + 10 * i as u64;
        let m = model(case, dtype, seed);
        let x = common::values(case.n * case.h * case.w * case.c, seed, -1.0, 1.0);
        let conv = case.reference(&x, &m.filter);
        let o = case.o;
        let biased: Vec<f64> = conv.iter().enumerate().map(|(j, v)| (v + m.bias[j % o]).max(0.0)).collect();
        let normed: Vec<f64> = conv
            .iter()
            .enumerate()
            .map(|(j, v)| {
                let ch = j % o;
                let [scale, offset, mean, var] = &m.bn;
                let k = scale[ch] / (var[ch] + EPSILON as f64).sqrt();
                ((v - mean[ch]) * k + offset[ch]).clamp(0.0, 6.0)
            })
            .collect();
        let got = run(&m, case, dtype, &x, 1);
        let (_, _, oh, ow) = case.geometry();
        for (t, (name, want)) in
            got.iter().zip([("conv_const", &conv), ("conv_fed", &conv), ("bias_relu", &biased), ("bn_relu6", &normed)])
        {
            assert_eq!(t.shape(), [case.n, oh, ow, o], "{name} {case:?}");
            let e = rel_err(t, want);
            assert!(e <= tol, "{dtype} {name} {case:?}: relative error {e:e} > {tol:e}");
        }
        assert_eq!(got[0], got[1], "{case:?}: a constant filter and the same filter fed");
        for threads in [2, 4] {
            assert_eq!(run(&m, case, dtype, &x, threads), got, "{dtype} {case:?}: {threads} threads against 1");
        }
    }
}

#[test]
fn float32_winograd_matches_a_direct_float64_convolution() {
    check(DType::Float, 1e-5);
}

#[test]
fn float64_winograd_matches_a_direct_float64_convolution() {
    check(DType::Double, 1e-12);
}
