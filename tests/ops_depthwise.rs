//! DepthwiseConv2dNative and its backprop ops: TensorFlow 2.21's values (strides,
//! SAME/VALID/EXPLICIT padding, dilations; the consts below are printed by
//! `scripts/nnops_reference.py depthwise`), NCHW against the NHWC values transposed,
//! shape inference and TensorFlow's errors, the gradient graph, and finite-difference
//! checks of every gradient.

mod common;
use common::{assert_close, check_gradients, one, weighted};
use tensorgraph::ops::DepthwiseConv2dOptions;
use tensorgraph::train::gradients;
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

const TOL: f64 = 1e-6;

/// `((i * mul) % modulo - modulo / 2) / div` over the flat index, as the script's `pattern`.
fn pattern(n: usize, mul: usize, modulo: usize, div: f32) -> Vec<f32> {
    (0..n).map(|i| ((i * mul) % modulo) as f32 - (modulo / 2) as f32).map(|v| v / div).collect()
}

/// NHWC values of dims `[n, h, w, c]` in NCHW order.
fn to_nchw(v: &[f32], [n, h, w, c]: [usize; 4]) -> Vec<f32> {
    let mut out = Vec::with_capacity(v.len());
    for b in 0..n {
        for ch in 0..c {
            out.extend((0..h * w).map(|p| v[(b * h * w + p) * c + ch]));
        }
    }
    out
}

/// NCHW values of NHWC dims `[n, h, w, c]` in NHWC order.
fn to_nhwc(v: &[f32], [n, h, w, c]: [usize; 4]) -> Vec<f32> {
    let mut out = Vec::with_capacity(v.len());
    for b in 0..n {
        for p in 0..h * w {
            out.extend((0..c).map(|ch| v[(b * c + ch) * h * w + p]));
        }
    }
    out
}

/// Options in `fmt`'s order from (h, w) strides and dilations and explicit (t, b, l, r).
fn opts(fmt: &str, st: [i64; 2], padding: &str, pads: Option<[i64; 4]>, dil: [i64; 2]) -> DepthwiseConv2dOptions {
    let nchw = fmt == "NCHW";
    let four = |[h, w]: [i64; 2]| if nchw { vec![1, 1, h, w] } else { vec![1, h, w, 1] };
    let explicit = match pads {
        Some([t, b, l, r]) if nchw => vec![0, 0, 0, 0, t, b, l, r],
        Some([t, b, l, r]) => vec![0, 0, t, b, l, r, 0, 0],
        None => vec![],
    };
    DepthwiseConv2dOptions {
        strides: four(st),
        padding: padding.into(),
        explicit_paddings: explicit,
        data_format: fmt.into(),
        dilations: four(dil),
    }
}

struct Case {
    name: &'static str,
    strides: [i64; 2],
    padding: &'static str,
    pads: Option<[i64; 4]>,
    dilations: [i64; 2],
    /// NHWC output dims
    out: [usize; 4],
    want: [&'static [f32]; 3],
}

fn cases() -> Vec<Case> {
    let c = |name, strides, padding, pads, dilations, out, want| Case {
        name,
        strides,
        padding,
        pads,
        dilations,
        out,
        want,
    };
    vec![
        c("SAME_1", [1, 1], "SAME", None, [1, 1], [2, 4, 5, 4], [SAME_1_Y, SAME_1_DX, SAME_1_DF]),
        c("VALID_2", [2, 2], "VALID", None, [1, 1], [2, 1, 2, 4], [VALID_2_Y, VALID_2_DX, VALID_2_DF]),
        c("SAME_DIL2", [1, 1], "SAME", None, [2, 2], [2, 4, 5, 4], [SAME_DIL2_Y, SAME_DIL2_DX, SAME_DIL2_DF]),
        c("VALID_DIL12", [1, 1], "VALID", None, [1, 2], [2, 2, 1, 4], [VALID_DIL12_Y, VALID_DIL12_DX, VALID_DIL12_DF]),
        c(
            "EXPLICIT_2",
            [2, 2],
            "EXPLICIT",
            Some([1, 2, 2, 0]),
            [1, 1],
            [2, 3, 3, 4],
            [EXPLICIT_2_Y, EXPLICIT_2_DX, EXPLICIT_2_DF],
        ),
    ]
}

const XD: [usize; 4] = [2, 4, 5, 2];
const FD: [usize; 4] = [3, 3, 2, 2];

fn c32(s: &Scope, shape: &[usize], v: Vec<f32>) -> Output {
    ops::constant(s, Tensor::new(shape, v).unwrap()).unwrap()
}

fn sizes(s: &Scope, d: &[usize]) -> Output {
    ops::constant(s, Tensor::vector(d.iter().map(|&v| v as i32).collect::<Vec<_>>())).unwrap()
}

fn f64s(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

/// Runs the three ops for `case` in `fmt` and returns (y, dx, df) in NHWC order.
fn run_case(case: &Case, fmt: &str) -> [Vec<f32>; 3] {
    let nchw = fmt == "NCHW";
    let o = opts(fmt, case.strides, case.padding, case.pads, case.dilations);
    let layout = |v: Vec<f32>, d: [usize; 4]| if nchw { to_nchw(&v, d) } else { v };
    let dims = |[n, h, w, c]: [usize; 4]| if nchw { vec![n, c, h, w] } else { vec![n, h, w, c] };
    let g = Graph::new();
    let s = g.scope();
    let x = c32(&s, &dims(XD), layout(X.to_vec(), XD));
    let f = c32(&s, &FD, F.to_vec());
    let dy_nhwc = pattern(case.out.iter().product(), 3, 11, 4.0);
    let dy = c32(&s, &dims(case.out), layout(dy_nhwc, case.out));
    let y = ops::depthwise_conv2d_native(&s, &x, &f, &o).unwrap();
    assert_eq!(y.shape(), Shape::known(&dims(case.out)), "{} {fmt}", case.name);
    let dx = ops::depthwise_conv2d_native_backprop_input(&s, &sizes(&s, &dims(XD)), &f, &dy, &o).unwrap();
    let df = ops::depthwise_conv2d_native_backprop_filter(&s, &x, &sizes(&s, &FD), &dy, &o).unwrap();
    assert_eq!(dx.shape(), Shape::known(&dims(XD)));
    assert_eq!(df.shape(), Shape::known(&FD));
    let out = Session::new(&g).unwrap().run(&[], &[&y, &dx, &df], &[]).unwrap();
    let back = |t: &Tensor, d: [usize; 4]| {
        let v = t.to_vec::<f32>().unwrap();
        if nchw {
            to_nhwc(&v, d)
        } else {
            v
        }
    };
    [back(&out[0], case.out), back(&out[1], XD), out[2].to_vec::<f32>().unwrap()]
}

#[test]
fn forward_and_backprop_ops_match_tensorflow_nhwc() {
    for case in cases() {
        let got = run_case(&case, "NHWC");
        for (i, what) in ["output", "input backprop", "filter backprop"].iter().enumerate() {
            assert_close(&format!("{} {what}", case.name), &f64s(&got[i]), &f64s(case.want[i]));
        }
    }
}

#[test]
fn nchw_is_nhwc_transposed() {
    // TensorFlow's own CPU kernels refuse NCHW: the NHWC values, transposed
    for case in cases() {
        let got = run_case(&case, "NCHW");
        for (i, what) in ["output", "input backprop", "filter backprop"].iter().enumerate() {
            assert_close(&format!("NCHW {} {what}", case.name), &f64s(&got[i]), &f64s(case.want[i]));
        }
    }
}

#[test]
fn unequal_strides_and_float64() {
    let g = Graph::new();
    let s = g.scope();
    let x = c32(&s, &XD, X.to_vec());
    let f = c32(&s, &FD, F.to_vec());
    let y = ops::depthwise_conv2d_native(&s, &x, &f, &DepthwiseConv2dOptions::new([2, 1], "VALID")).unwrap();
    assert_eq!(y.name(), "DepthwiseConv2dNative:0");
    assert_eq!(y.shape(), Shape::known(&[2, 1, 3, 4]));
    let sess = Session::new(&g).unwrap();
    assert_close("strides (2, 1)", &sess.fetch(&[], &y).unwrap().to_f64_vec().unwrap(), &f64s(VALID_21_Y));
    let x64 = ops::cast(&s, &x, DType::Double).unwrap();
    let f64_ = ops::cast(&s, &f, DType::Double).unwrap();
    let y = ops::depthwise_conv2d_native(&s, &x64, &f64_, &DepthwiseConv2dOptions::new([2, 2], "SAME")).unwrap();
    assert_eq!(y.dtype(), DType::Double);
    let got = Session::new(&g).unwrap().fetch(&[], &y).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(got, F64_SAME_2_Y, "float64 sums of float32-exact values are exact");
}

#[test]
fn channel_multipliers_one_and_zero() {
    // M = 1: output channel c is the M = 2 output's channel 2c (filter[.., .., c, 0])
    let g = Graph::new();
    let s = g.scope();
    let x = c32(&s, &XD, X.to_vec());
    let f1: Vec<f32> = F.iter().step_by(2).copied().collect();
    let y =
        ops::depthwise_conv2d_native(&s, &x, &c32(&s, &[3, 3, 2, 1], f1), &DepthwiseConv2dOptions::default()).unwrap();
    let want: Vec<f32> = SAME_1_Y.iter().step_by(2).copied().collect();
    let sess = Session::new(&g).unwrap();
    assert_close("M = 1", &sess.fetch(&[], &y).unwrap().to_f64_vec().unwrap(), &f64s(&want));
    // M = 0: an empty output, no work
    let y = ops::depthwise_conv2d_native(&s, &x, &c32(&s, &[3, 3, 2, 0], vec![]), &DepthwiseConv2dOptions::default())
        .unwrap();
    assert_eq!(y.shape(), Shape::known(&[2, 4, 5, 0]));
    assert_eq!(sess.fetch(&[], &y).unwrap().shape(), [2, 4, 5, 0]);
}

#[test]
fn shapes_and_errors() {
    let g = Graph::new();
    let s = g.scope();
    let f = c32(&s, &FD, F.to_vec());
    let x = ops::placeholder(&s.named("x"), DType::Float, [None, Some(7), None, Some(2)]).unwrap();
    let y = ops::depthwise_conv2d_native(&s, &x, &f, &DepthwiseConv2dOptions::new([2, 2], "SAME")).unwrap();
    assert_eq!(y.shape(), Shape::partial(&[None, Some(4), None, Some(4)]));
    let o = opts("NCHW", [1, 1], "VALID", None, [2, 1]);
    let xc = ops::placeholder(&s, DType::Float, [Some(1), Some(2), Some(6), Some(5)]).unwrap();
    assert_eq!(ops::depthwise_conv2d_native(&s, &xc, &f, &o).unwrap().shape(), Shape::known(&[1, 4, 2, 3]));
    let err = |o: &DepthwiseConv2dOptions, x: &Output, f: &Output, code: Code, want: &str| {
        let e = ops::depthwise_conv2d_native(&s, x, f, o).expect_err(want);
        assert_eq!(e.code, code, "{e}");
        assert!(e.message.contains(want), "{e}\nwanted: {want}");
    };
    let same = DepthwiseConv2dOptions::default();
    let f3 = c32(&s, &[3, 3, 3, 2], vec![0.0; 54]);
    err(&same, &x, &f3, Code::InvalidArgument, "Dimensions must be equal, but are 2 and 3");
    let x3 = c32(&s, &[4, 5, 2], vec![0.0; 40]);
    err(&same, &x3, &f, Code::InvalidArgument, "Shape must be rank 4 but is rank 3");
    let f8 = c32(&s, &[8, 1, 2, 1], vec![0.0; 16]);
    let valid = DepthwiseConv2dOptions::new([1, 1], "VALID");
    err(&valid, &x, &f8, Code::InvalidArgument, "Negative dimension size caused by subtracting 8 from 7");
    let dil = DepthwiseConv2dOptions { dilations: vec![1, 4, 1, 1], ..valid.clone() };
    err(&dil, &x, &f, Code::InvalidArgument, "Negative dimension size caused by subtracting 9 from 7");
    let ex = |p: Vec<i64>| DepthwiseConv2dOptions { padding: "EXPLICIT".into(), explicit_paddings: p, ..same.clone() };
    err(
        &ex(vec![1, 1]),
        &x,
        &f,
        Code::InvalidArgument,
        "explicit_paddings attribute must contain 8 values, but got: 2",
    );
    err(
        &ex(vec![1, 1, 0, 0, 0, 0, 0, 0]),
        &x,
        &f,
        Code::InvalidArgument,
        "Nonzero explicit padding in the batch or depth dimensions is not supported",
    );
    let both = DepthwiseConv2dOptions { explicit_paddings: vec![0, 0, 1, 1, 1, 1, 0, 0], ..same.clone() };
    err(
        &both,
        &x,
        &f,
        Code::InvalidArgument,
        "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT",
    );
    let st3 = DepthwiseConv2dOptions { strides: vec![1, 1, 1], ..same.clone() };
    err(
        &st3,
        &x,
        &f,
        Code::InvalidArgument,
        "DepthwiseConv2D requires the stride attribute to contain 4 values, but got: 3",
    );
    let stb = DepthwiseConv2dOptions { strides: vec![2, 1, 1, 1], ..same.clone() };
    err(
        &stb,
        &x,
        &f,
        Code::Unimplemented,
        "Current implementation does not yet support strides in the batch and depth dimensions.",
    );
    let dlb = DepthwiseConv2dOptions { dilations: vec![1, 1, 1, 2], ..same.clone() };
    err(&dlb, &x, &f, Code::InvalidArgument, "does not yet support dilations in the batch and depth dimensions.");
    let pad = DepthwiseConv2dOptions { padding: "FOO".into(), ..same.clone() };
    err(&pad, &x, &f, Code::InvalidArgument, "FOO");
    let xi = ops::constant(&s, Tensor::new(&[1, 3, 3, 2], vec![0i32; 18]).unwrap()).unwrap();
    let fi = ops::constant(&s, Tensor::new(&[1, 1, 2, 1], vec![0i32; 2]).unwrap()).unwrap();
    err(&same, &xi, &fi, Code::InvalidArgument, "int32");
    // run time: a fed input whose depth is not the filter's, an out_backprop of the wrong shape
    let xu = ops::placeholder(&s, DType::Float, Shape::unknown()).unwrap();
    let y = ops::depthwise_conv2d_native(&s, &xu, &f, &same).unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess.fetch(&[(&xu, Tensor::new(&[1, 2, 2, 3], vec![0f32; 12]).unwrap())], &y).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("input and filter must have the same depth: 3 vs 2"), "{e}");
    let dy = c32(&s, &[1, 2, 2, 3], vec![0.0; 12]);
    let dx = ops::depthwise_conv2d_native_backprop_input(&s, &sizes(&s, &[1, 2, 2, 2]), &f, &dy, &same).unwrap();
    let e = sess.fetch(&[], &dx).unwrap_err();
    assert!(
        e.message.contains("out_backprop has shape [1, 2, 2, 3] but the convolution's output is [1, 2, 2, 4]"),
        "{e}"
    );
}

fn ops_under(g: &Graph, prefix: &str) -> Vec<(String, String)> {
    g.operations().iter().filter(|o| o.name().starts_with(prefix)).map(|o| (o.name(), o.op_type())).collect()
}

#[test]
fn gradient_graph_is_tensorflows() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [2, 4, 5, 2]).unwrap();
    let f = ops::placeholder(&s.named("f"), DType::Float, [3, 3, 2, 2]).unwrap();
    let o = opts("NHWC", [2, 2], "EXPLICIT", Some([1, 2, 2, 0]), [1, 1]);
    let y = ops::depthwise_conv2d_native(&s, &x, &f, &o).unwrap();
    let gr = gradients(&[y], &[x.clone(), f.clone()], None).unwrap();
    let want: Vec<(String, String)> = [
        ("gradients/DepthwiseConv2dNative_grad/Shape", "Const"),
        (
            "gradients/DepthwiseConv2dNative_grad/DepthwiseConv2dNativeBackpropInput",
            "DepthwiseConv2dNativeBackpropInput",
        ),
        ("gradients/DepthwiseConv2dNative_grad/Shape_1", "Const"),
        (
            "gradients/DepthwiseConv2dNative_grad/DepthwiseConv2dNativeBackpropFilter",
            "DepthwiseConv2dNativeBackpropFilter",
        ),
    ]
    .iter()
    .map(|&(a, b)| (a.into(), b.into()))
    .collect();
    assert_eq!(ops_under(&g, "gradients/DepthwiseConv2dNative_grad/"), want);
    let node = gr[0].as_ref().unwrap().op().node();
    for attr in ["strides", "padding", "explicit_paddings", "data_format", "dilations"] {
        assert_eq!(node.attrs.get(attr), y_attr(&g, attr).as_ref(), "{attr}");
    }
}

fn y_attr(g: &Graph, name: &str) -> Option<tensorgraph::graph::AttrValue> {
    g.operation_by_name("DepthwiseConv2dNative").unwrap().node().attrs.get(name).cloned()
}

#[test]
fn gradients_by_finite_differences() {
    let inp = vec![one(&[2, 4, 5, 2], 1, -1.0, 1.0), one(&[3, 3, 2, 2], 2, -1.0, 1.0)];
    let configs = [
        ("NHWC", [1, 1], "SAME", None, [1, 1]),
        ("NHWC", [2, 1], "VALID", None, [1, 1]),
        ("NHWC", [1, 1], "SAME", None, [2, 2]),
        ("NHWC", [2, 2], "EXPLICIT", Some([1, 2, 2, 0]), [1, 1]),
        ("NCHW", [2, 2], "SAME", None, [1, 1]),
        ("NCHW", [1, 1], "VALID", None, [1, 2]),
    ];
    for (fmt, st, pad, pads, dil) in configs {
        let o = opts(fmt, st, pad, pads, dil);
        // NCHW reads the same values as [2, 2, 4, 5]
        let inp = if fmt == "NCHW" { vec![(vec![2, 2, 4, 5], inp[0].1.clone()), inp[1].clone()] } else { inp.clone() };
        check_gradients(&inp, TOL, |s, x| {
            let y = ops::depthwise_conv2d_native(s, &x[0], &x[1], &o).unwrap();
            let d: Vec<usize> = y.shape().dims().unwrap().iter().map(|d| d.unwrap()).collect();
            weighted(s, &y, &d, 3)
        });
    }
}

#[test]
fn backprop_ops_gradients_by_finite_differences() {
    let o = opts("NHWC", [2, 2], "SAME", None, [1, 1]);
    // BackpropInput(sizes, filter, dy): gradients for filter and dy
    let inp = vec![one(&[3, 3, 2, 2], 4, -1.0, 1.0), one(&[1, 2, 3, 4], 5, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| {
        let y = ops::depthwise_conv2d_native_backprop_input(s, &sizes(s, &[1, 4, 5, 2]), &x[0], &x[1], &o).unwrap();
        weighted(s, &y, &[1, 4, 5, 2], 6)
    });
    // BackpropFilter(x, sizes, dy): gradients for x and dy
    let inp = vec![one(&[1, 4, 5, 2], 7, -1.0, 1.0), one(&[1, 2, 3, 4], 8, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| {
        let y = ops::depthwise_conv2d_native_backprop_filter(s, &x[0], &sizes(s, &[3, 3, 2, 2]), &x[1], &o).unwrap();
        weighted(s, &y, &[3, 3, 2, 2], 9)
    });
}

// ---- TensorFlow 2.21's values: scripts/nnops_reference.py depthwise
/// shape [2, 4, 5, 2]
const X: &[f32] = &[
    -1.375, -0.5, 0.375, 1.25, -0.75, 0.125, 1.0, -1.0, -0.125, 0.75, -1.25, -0.375, 0.5, 1.375, -0.625, 0.25, 1.125,
    -0.875, 0.0, 0.875, -1.125, -0.25, 0.625, -1.375, -0.5, 0.375, 1.25, -0.75, 0.125, 1.0, -1.0, -0.125, 0.75, -1.25,
    -0.375, 0.5, 1.375, -0.625, 0.25, 1.125, -0.875, 0.0, 0.875, -1.125, -0.25, 0.625, -1.375, -0.5, 0.375, 1.25,
    -0.75, 0.125, 1.0, -1.0, -0.125, 0.75, -1.25, -0.375, 0.5, 1.375, -0.625, 0.25, 1.125, -0.875, 0.0, 0.875, -1.125,
    -0.25, 0.625, -1.375, -0.5, 0.375, 1.25, -0.75, 0.125, 1.0, -1.0, -0.125, 0.75, -1.25,
];
/// shape [3, 3, 2, 2]
const F: &[f32] = &[
    -1.5, -0.25, 1.0, -1.0, 0.25, 1.5, -0.5, 0.75, -1.25, 0.0, 1.25, -0.75, 0.5, -1.5, -0.25, 1.0, -1.0, 0.25, 1.5,
    -0.5, 0.75, -1.25, 0.0, 1.25, -0.75, 0.5, -1.5, -0.25, 1.0, -1.0, 0.25, 1.5, -0.5, 0.75, -1.25, 0.0,
];
/// shape [2, 4, 5, 4]
const SAME_1_Y: &[f32] = &[
    0.15625, 0.8125, -2.5625, 1.25, 0.125, 1.5, 2.59375, 1.1875, 0.125, -0.28125, -1.03125, -0.03125, 0.125, 0.09375,
    -3.21875, 0.1875, -0.21875, -0.96875, 2.90625, 0.15625, -0.625, -1.40625, 2.90625, 0.21875, 3.21875, 2.125, 0.75,
    -1.40625, -1.875, -1.78125, 3.0625, 0.65625, 1.65625, 1.5, -1.8125, -0.875, -1.78125, -1.625, 1.53125, 1.9375,
    -0.71875, -1.375, 3.0625, -3.09375, 2.90625, 2.0, -3.5, 0.28125, -2.1875, -1.90625, 3.84375, -1.96875, 1.34375,
    1.375, -1.75, -0.625, -1.96875, -1.6875, 1.59375, 2.125, 0.5, -2.875, -1.78125, -0.65625, 0.9375, 3.375, -0.9375,
    0.0625, -0.84375, -3.84375, -1.4375, -0.0625, -0.46875, 2.59375, 0.9375, 0.53125, -1.40625, -2.125, 0.59375,
    0.3125, 0.28125, 0.1875, 1.28125, -1.21875, 0.125, 0.375, -3.0625, -0.1875, -0.59375, 0.03125, 3.375, -0.6875,
    0.125, 1.125, -3.84375, 1.6875, 0.375, 1.03125, 2.90625, 1.03125, -1.0, -1.28125, -0.0625, -0.09375, 1.96875,
    1.625, -1.875, -1.125, -0.25, -0.84375, 1.15625, 1.65625, -0.3125, -1.15625, 2.03125, 0.125, 2.5, 1.71875, 1.0625,
    -1.625, -1.09375, -1.25, 0.09375, 0.1875, 1.65625, 1.5, -1.8125, -0.875, -0.5625, -0.96875, 1.21875, 1.90625,
    -0.625, -1.28125, 2.09375, -3.21875, 2.3125, 1.65625, -3.1875, 0.0, -0.125, -2.625, -0.65625, -0.28125, -0.1875,
    2.75, 0.5625, 0.4375, -0.53125, -0.875, 0.0625, 0.3125, 0.5625, -3.0625, -1.15625, -0.53125, 0.59375, 2.90625,
    -1.40625, -0.28125,
];
/// shape [2, 4, 5, 2]
const SAME_1_DX: &[f32] = &[
    1.5, 0.5, 0.75, -1.6875, 0.5625, 0.625, -4.4375, -1.875, -2.5, 0.6875, -0.125, -1.3125, -3.5625, -1.625, 3.125,
    -2.375, 1.5625, -3.8125, 1.75, -1.75, -1.25, -0.875, 3.75, 5.625, -0.5625, 0.0625, 2.0, 2.0625, -1.625, 1.25,
    1.9375, 2.5625, -3.3125, -2.0625, -2.5, -0.9375, 1.0625, -4.625, -2.625, -3.0625, 1.0, 0.875, 1.8125, 1.25, 3.6875,
    3.5625, 0.75, -1.6875, 2.0, 2.625, -2.5625, 1.125, -3.875, 0.5625, -3.375, -2.9375, -3.5625, -1.625, -0.75, -3.5,
    1.125, -2.5625, 4.125, 3.0, 1.875, 0.1875, 3.75, 5.625, 2.0625, 1.5625, 0.875, 1.0, -1.5, 0.5, 0.0, 1.625, -3.3125,
    -2.0625, -1.4375, -0.3125,
];
/// shape [3, 3, 2, 2]
const SAME_1_DF: &[f32] = &[
    3.21875, -4.6875, 0.875, 1.875, 0.28125, -1.34375, 1.625, 5.1875, -1.6875, 0.84375, -1.90625, 2.5625, 3.59375,
    -3.15625, -1.9375, -3.0625, 3.46875, 0.65625, 0.40625, -2.71875, -0.1875, 1.25, -1.78125, -0.0625, 2.28125, -0.625,
    1.03125, -2.6875, 2.09375, -1.1875, 2.8125, -2.34375, -0.03125, -1.09375, 5.3125, 1.1875,
];
/// shape [2, 1, 2, 4]
const VALID_2_Y: &[f32] = &[
    3.21875, 2.125, 0.75, -1.40625, 1.65625, 1.5, -1.8125, -0.875, 1.96875, 1.625, -1.875, -1.125, -0.3125, -1.15625,
    2.03125, 0.125,
];
/// shape [2, 4, 5, 2]
const VALID_2_DX: &[f32] = &[
    2.0, -0.75, -1.0625, 0.625, 3.125, -1.1875, -0.625, 0.6875, 1.25, -0.3125, 0.125, 0.9375, 1.125, -0.125, -0.4375,
    2.375, 0.9375, 0.125, -0.4375, 1.5625, 0.6875, -0.625, -0.75, 1.5625, 0.875, -1.375, -0.75, 2.0, 0.3125, -0.625,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.125, 2.0, -0.1875, -1.3125, 1.625, 3.875, 0.25, -1.25, 0.625,
    2.0, -0.375, -1.4375, 0.75, 1.75, -1.1875, -2.8125, 0.5625, 2.0, -0.6875, -1.25, 0.5625, -0.8125, -0.75, -1.6875,
    0.875, -2.1875, -0.75, -1.25, 0.4375, -1.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
];
/// shape [3, 3, 2, 2]
const VALID_2_DF: &[f32] = &[
    3.25, 0.8125, 0.5625, -0.96875, -1.4375, -0.78125, -1.53125, 1.90625, 1.0625, 0.5, 2.125, -0.96875, 2.8125, 0.75,
    0.875, -0.96875, -1.875, -0.84375, -1.21875, 1.90625, 0.625, 0.4375, 2.4375, -0.96875, 2.375, 0.6875, 1.1875,
    -0.96875, -2.3125, -0.90625, -1.625, -0.96875, 0.1875, 0.375, -0.125, 1.90625,
];
/// shape [2, 4, 5, 4]
const SAME_DIL2_Y: &[f32] = &[
    -0.0625, 1.34375, -1.28125, 0.03125, 0.375, -0.84375, 2.46875, -3.9375, 0.25, 2.0625, -0.46875, 1.0, -0.03125,
    -1.25, 0.0625, 0.96875, 0.25, 0.71875, 0.78125, 1.15625, -0.03125, 1.1875, -1.21875, 0.3125, 0.40625, -1.0,
    2.53125, -3.65625, 0.25, 1.78125, -0.625, 1.375, -0.0625, -1.46875, 0.0625, 1.1875, 0.21875, 0.5, 0.78125, 1.375,
    1.34375, -1.71875, 0.03125, 0.125, -0.84375, -0.84375, -3.9375, 1.4375, 2.0625, 0.625, 1.0, 0.84375, -1.25,
    0.78125, 0.96875, -3.0, 0.71875, 0.78125, 1.15625, 0.3125, 1.1875, -1.65625, 0.3125, 0.21875, -1.0, -0.78125,
    -3.65625, 1.53125, 1.78125, 0.46875, 1.375, 0.9375, -1.46875, 0.78125, 1.1875, -2.96875, 0.5, 0.78125, 1.375,
    0.34375, 0.0625, 0.71875, -1.03125, 1.15625, -0.21875, -0.03125, -1.59375, -1.375, 0.25, 0.9375, 2.5, 2.5,
    -0.15625, 0.03125, 0.78125, -1.03125, 0.125, -0.15625, 0.0625, -2.28125, 0.09375, 0.5625, -0.96875, 1.4375,
    -0.1875, -0.1875, -1.53125, -1.09375, 0.25, 0.65625, 2.34375, 2.875, -0.1875, -0.1875, 0.78125, -0.8125, 0.09375,
    -0.375, 0.0625, -2.0625, 0.71875, -1.46875, 1.15625, 0.5, -0.03125, 3.0, -1.375, -0.34375, 0.9375, 0.0, 2.5,
    -2.375, 0.03125, -4.25, -1.03125, 0.0, -0.15625, 0.78125, -2.28125, 1.875, 0.5625, -1.40625, 1.4375, 0.59375,
    -0.1875, 3.0625, -1.09375, -0.25, 0.65625, -0.15625, 2.875, -2.28125, -0.1875, -4.25, -0.8125, 0.03125, -0.375,
    0.78125, -2.0625, 1.90625,
];
/// shape [2, 4, 5, 2]
const SAME_DIL2_DX: &[f32] = &[
    1.5, -1.75, 0.375, 1.5, -1.9375, 4.0625, 1.5, 1.8125, 1.3125, -0.875, -1.375, -3.375, 2.3125, -1.5, 1.9375, 0.5,
    -0.125, -2.0, -4.4375, -1.25, -1.75, 1.5, 0.5, -0.8125, 2.125, -3.875, 0.0, 1.125, -0.25, 1.8125, -1.5, 2.3125,
    -3.375, -1.375, 0.0, -0.3125, 1.5, -0.25, 0.5625, 0.4375, -4.5, 0.0, -0.8125, 0.5, 2.5625, -1.9375, 0.5, 1.0,
    -1.75, 3.125, -0.5, 2.5, -0.9375, 0.25, -1.125, -2.75, 0.9375, -0.0625, 0.75, 0.6875, 3.375, -0.0625, 1.5, 0.375,
    -0.875, 2.125, 1.1875, 2.5, 2.3125, -0.9375, -0.5, 1.4375, -1.0, 2.5625, -1.625, -0.5, -0.75, -5.0625, -1.0,
    -0.9375,
];
/// shape [3, 3, 2, 2]
const SAME_DIL2_DF: &[f32] = &[
    -0.84375, 0.84375, 0.71875, -2.28125, 0.0625, 2.28125, -1.9375, 2.375, -2.40625, 1.96875, 2.375, -0.6875, -0.53125,
    -0.0625, 1.40625, -0.8125, 3.46875, 0.65625, 0.40625, -2.71875, -4.03125, 3.1875, -2.0, -2.625, 0.375, -0.84375,
    -0.6875, -0.59375, 3.28125, -1.0625, -0.65625, -0.1875, -2.25, 1.96875, 1.46875, -3.3125,
];
/// shape [2, 2, 1, 4]
const VALID_DIL12_Y: &[f32] = &[
    2.3125, 0.96875, 0.0625, 1.25, 2.0, 0.84375, 0.125, 1.5, 1.0625, 0.46875, 3.90625, 2.25, 0.75, 0.34375, 3.96875,
    -1.09375,
];
/// shape [2, 4, 5, 2]
const VALID_DIL12_DX: &[f32] = &[
    2.0, -0.75, 0.0, 0.0, -1.0625, 0.625, 0.0, 0.0, 1.5625, -0.4375, 1.6875, 0.1875, 0.0, 0.0, 0.5, 0.5625, 0.0, 0.0,
    0.9375, 0.9375, 0.5625, 0.5, 0.0, 0.0, 0.1875, 1.6875, 0.0, 0.0, -0.1875, 1.25, 0.625, -1.0625, 0.0, 0.0, -0.75,
    2.0, 0.0, 0.0, 0.3125, -0.625, 1.125, 2.0, 0.0, 0.0, -0.1875, -1.3125, 0.0, 0.0, 0.9375, 1.875, 0.3125, 0.5625,
    0.0, 0.0, 1.0, 0.5, 0.0, 0.0, 0.0625, 0.4375, -0.0625, -2.0625, 0.0, 0.0, -0.1875, 0.3125, 0.0, 0.0, -0.3125,
    -2.1875, 0.5, -1.25, 0.0, 0.0, -0.75, -1.25, 0.0, 0.0, 0.4375, -1.25,
];
/// shape [3, 3, 2, 2]
const VALID_DIL12_DF: &[f32] = &[
    4.0, 0.8125, -0.1875, -1.09375, 1.8125, 0.5, 1.375, -1.09375, -0.375, 0.1875, 2.9375, -1.09375, 3.5625, 0.75,
    0.125, -1.09375, 1.375, 0.4375, 1.6875, -1.09375, -0.8125, 0.125, 0.375, 1.78125, 3.125, 0.6875, 0.4375, -1.09375,
    0.9375, 0.375, 2.0, -1.09375, -1.25, 0.0625, -1.46875, 5.375,
];
/// shape [2, 3, 3, 4]
const EXPLICIT_2_Y: &[f32] = &[
    -0.40625, 0.78125, 0.46875, -0.625, 0.125, 1.5, 2.59375, 1.1875, 0.125, 0.09375, -3.21875, 0.1875, 1.21875,
    0.65625, -0.3125, -0.03125, 2.90625, 2.0, -3.5, 0.28125, 1.34375, 1.375, -1.75, -0.625, 1.25, 0.0, -0.15625,
    0.09375, 2.15625, 1.375, 1.125, -1.1875, 0.59375, 2.15625, 2.21875, -1.8125, -0.28125, 0.53125, -0.15625, 0.0,
    0.125, 0.375, -3.0625, -0.1875, 0.125, 1.125, -3.84375, 1.6875, 0.71875, 0.40625, -0.3125, 0.21875, 1.65625, 1.5,
    -1.8125, -0.875, -0.625, -1.28125, 2.09375, -3.21875, 0.625, 0.0, 0.46875, -0.28125, 0.90625, 2.0, 2.0, -1.6875,
    -1.375, -1.53125, -0.5, -0.15625,
];
/// shape [2, 4, 5, 2]
const EXPLICIT_2_DX: &[f32] = &[
    -0.4375, 2.375, 0.9375, 0.125, -0.8125, 0.125, 0.75, 1.75, -0.5625, -1.5625, 1.75, 2.625, -0.0625, 0.8125, 1.0,
    -0.0625, 0.375, -1.4375, 0.375, -2.125, -1.5625, -2.3125, 0.375, 2.25, -1.9375, -1.125, 0.1875, -1.625, -0.9375,
    -0.625, -0.5, -4.75, 1.25, -0.4375, -0.5625, -1.25, -2.4375, -0.625, -0.375, 0.75, 3.75, 1.375, -1.4375, -0.375,
    2.0, 1.875, 1.125, -0.125, -0.3125, 1.25, -0.1875, 1.8125, 1.8125, -0.1875, 1.125, 3.25, -0.5, 0.3125, 0.875,
    1.6875, -0.8125, 0.125, 0.75, 1.75, -1.1875, -2.8125, 0.5625, 2.0, -0.6875, -1.25, 1.0, -0.0625, 0.375, -1.4375,
    0.25, -4.125, 0.8125, -0.9375, 0.125, -2.3125,
];
/// shape [3, 3, 2, 2]
const EXPLICIT_2_DF: &[f32] = &[
    0.1875, -2.15625, -1.5625, -1.0625, 0.90625, -0.0625, 4.0, 1.28125, 1.4375, -1.5, 0.5, -2.5625, 1.90625, 0.1875,
    0.28125, -1.34375, 1.25, 0.90625, -1.9375, 4.21875, 1.90625, 1.625, -0.8125, 0.5, 1.5, 0.1875, 0.6875, -1.5625,
    0.84375, 0.90625, -1.53125, 4.0, 1.28125, 1.4375, -0.21875, 0.5,
];
/// shape [2, 1, 3, 4]
const VALID_21_Y: &[f32] = &[
    3.21875, 2.125, 0.75, -1.40625, -1.875, -1.78125, 3.0625, 0.65625, 1.65625, 1.5, -1.8125, -0.875, 1.96875, 1.625,
    -1.875, -1.125, -0.25, -0.84375, 1.15625, 1.65625, -0.3125, -1.15625, 2.03125, 0.125,
];
/// shape [2, 2, 3, 4]
const F64_SAME_2_Y: &[f64] = &[
    -0.625, -1.40625, 2.90625, 0.21875, -1.875, -1.78125, 3.0625, 0.65625, -1.78125, -1.625, 1.53125, 1.9375, 0.5,
    -2.875, -1.78125, -0.65625, -0.84375, -3.84375, -1.4375, -0.0625, -1.40625, -2.125, 0.59375, 0.3125, -1.0,
    -1.28125, -0.0625, -0.09375, -0.25, -0.84375, 1.15625, 1.65625, 2.5, 1.71875, 1.0625, -1.625, -0.125, -2.625,
    -0.65625, -0.28125, -0.53125, -0.875, 0.0625, 0.3125, 0.59375, 2.90625, -1.40625, -0.28125,
];

/// `DepthwiseConv2dNative` of NHWC `x [n,h,w,c]` and `f [kh,kw,c,1]` in float64, with the
/// padding before (top, left) and the output dims; and each output's sum of |x * w|.
fn reference_m1(
    x: &[f32],
    [n, h, w, c]: [usize; 4],
    f: &[f32],
    [kh, kw]: [usize; 2],
    [sh, sw]: [usize; 2],
    [pt, pl]: [usize; 2],
    [oh, ow]: [usize; 2],
) -> (Vec<f64>, Vec<f64>) {
    let (mut y, mut mag) = (Vec::new(), Vec::new());
    for b in 0..n {
        for oy in 0..oh {
            for ox in 0..ow {
                for ch in 0..c {
                    let (mut s, mut m) = (0f64, 0f64);
                    for ky in 0..kh {
                        for kx in 0..kw {
                            let (iy, ix) =
                                ((oy * sh + ky) as isize - pt as isize, (ox * sw + kx) as isize - pl as isize);
                            if iy < 0 || ix < 0 || iy >= h as isize || ix >= w as isize {
                                continue;
                            }
                            let t = x[((b * h + iy as usize) * w + ix as usize) * c + ch] as f64
                                * f[(ky * kw + kx) * c + ch] as f64;
                            s += t;
                            m += t.abs();
                        }
                    }
                    y.push(s);
                    mag.push(m);
                }
            }
        }
    }
    (y, mag)
}

#[test]
fn multiplier_one_rows_match_float64() {
    // the row loop's blocks of pixels and channels: widths not multiples of the block,
    // stride 2 with odd widths, channels not multiples of 8 or 16, SAME and EXPLICIT padding
    for &(w, c, stride, padding) in &[
        (11usize, 48usize, 1usize, "SAME"),
        (13, 20, 1, "SAME"),
        (13, 32, 2, "SAME"),
        (9, 7, 2, "SAME"),
        (12, 16, 2, "SAME"),
        (5, 1, 1, "SAME"),
        (10, 17, 1, "VALID"),
        (11, 33, 2, "VALID"),
        (14, 24, 1, "EXPLICIT"),
        (15, 40, 2, "EXPLICIT"),
    ] {
        let (n, h, k) = (2, 5, 3);
        let x = pattern(n * h * w * c, 37, 101, 50.0);
        let f = pattern(k * k * c, 13, 29, 14.0);
        let (pads, [pt, pl], [oh, ow]) = match padding {
            "SAME" => {
                let (oh, ow) = (h.div_ceil(stride), w.div_ceil(stride));
                let pad = |o: usize, i: usize| ((o - 1) * stride + k).saturating_sub(i) / 2;
                (None, [pad(oh, h), pad(ow, w)], [oh, ow])
            }
            "VALID" => (None, [0, 0], [(h - k) / stride + 1, (w - k) / stride + 1]),
            _ => (Some([1, 2, 0, 3]), [1, 0], [(h + 3 - k) / stride + 1, (w + 3 - k) / stride + 1]),
        };
        let g = Graph::new();
        let s = g.scope();
        let xo = c32(&s, &[n, h, w, c], x.clone());
        let fo = c32(&s, &[k, k, c, 1], f.clone());
        let o = opts("NHWC", [stride as i64; 2], padding, pads, [1, 1]);
        let y = ops::depthwise_conv2d_native(&s, &xo, &fo, &o).unwrap();
        let got = Session::new(&g).unwrap().fetch(&[], &y).unwrap();
        assert_eq!(got.shape(), [n, oh, ow, c]);
        let (want, mag) = reference_m1(&x, [n, h, w, c], &f, [k, k], [stride; 2], [pt, pl], [oh, ow]);
        for (i, ((&v, &r), &m)) in got.to_vec::<f32>().unwrap().iter().zip(&want).zip(&mag).enumerate() {
            assert!(
                (v as f64 - r).abs() <= 1e-6 * m.max(1e-30),
                "w {w} c {c} stride {stride} {padding}: output {i} is {v}, want {r}"
            );
        }
    }
}
