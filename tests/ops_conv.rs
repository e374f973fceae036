//! Conv2D, Conv2DBackpropInput/Filter, MaxPool/MaxPoolGrad, AvgPool/AvgPoolGrad:
//! hand-computed values, a direct-loop reference on random data, errors, finite-difference
//! gradient checks, and the TensorFlow 2.21 `cnn_frozen` fixture end to end (rebuilt from
//! the manifest's weights, and imported from frozen.pb).

mod common;
use common::{check_gradients, one, values, weighted};
use tensorgraph::graph::AttrValue;
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

const TOL: f64 = 1e-6;

fn run(out: &Output) -> Tensor {
    let sess = Session::new(out.graph()).unwrap();
    sess.run(&[], &[out], &[]).unwrap().remove(0)
}

fn cf32(s: &Scope, shape: &[usize], v: Vec<f32>) -> Output {
    ops::constant(s, Tensor::new(shape, v).unwrap()).unwrap()
}

fn f32s(t: &Tensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

/// 1x3x3x1 holding 1..9.
fn nine(s: &Scope) -> Output {
    cf32(s, &[1, 3, 3, 1], (1..=9).map(|v| v as f32).collect())
}

#[test]
fn ops_registered() {
    for t in
        ["Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad"]
    {
        assert_eq!(ops::lookup(t).unwrap().op_type(), t);
    }
}

#[test]
fn conv2d_hand_computed() {
    let g = Graph::new();
    let s = g.scope();
    let x = nine(&s);
    let ones = cf32(&s, &[2, 2, 1, 1], vec![1.0; 4]);
    let v = ops::conv2d(&s, &x, &ones, &[1, 1, 1, 1], "VALID").unwrap();
    assert_eq!(v.name(), "Conv2D:0");
    assert_eq!(v.shape(), Shape::known(&[1, 2, 2, 1]));
    let node = v.op().node();
    assert_eq!(node.attrs.get("strides").unwrap(), &AttrValue::ListInt(vec![1, 1, 1, 1]));
    assert_eq!(node.attrs.get("padding").unwrap(), &AttrValue::String(b"VALID".to_vec()));
    assert_eq!(node.attrs.get("data_format").unwrap(), &AttrValue::String(b"NHWC".to_vec()));
    assert_eq!(node.attrs.get("dilations").unwrap(), &AttrValue::ListInt(vec![1, 1, 1, 1]));
    assert_eq!(f32s(&run(&v)), vec![12.0, 16.0, 24.0, 28.0]);
    // SAME, stride 1: padding 0 before, 1 after
    let sm = ops::conv2d(&s, &x, &ones, &[1], "SAME").unwrap();
    assert_eq!(sm.shape(), Shape::known(&[1, 3, 3, 1]));
    assert_eq!(f32s(&run(&sm)), vec![12.0, 16.0, 9.0, 24.0, 28.0, 15.0, 15.0, 17.0, 9.0]);
    // SAME, stride 2
    let s2 = ops::conv2d(&s, &x, &ones, &[2, 2], "SAME").unwrap();
    assert_eq!(s2.shape(), Shape::known(&[1, 2, 2, 1]));
    assert_eq!(f32s(&run(&s2)), vec![12.0, 9.0, 15.0, 9.0]);
    // 3x3 SAME: padding 1 on each side; centre tap only = identity
    let mut centre = vec![0.0f32; 9];
    centre[4] = 1.0;
    let id = ops::conv2d(&s, &x, &cf32(&s, &[3, 3, 1, 1], centre), &[1, 1, 1, 1], "SAME").unwrap();
    assert_eq!(f32s(&run(&id)), (1..=9).map(|v| v as f32).collect::<Vec<_>>());
    // two output channels, two input channels: 1x1 conv is a matmul over channels
    let x2 = cf32(&s, &[1, 1, 2, 2], vec![1.0, 2.0, 3.0, 4.0]);
    let w2 = cf32(&s, &[1, 1, 2, 2], vec![1.0, 10.0, 100.0, 1000.0]);
    let y2 = ops::conv2d(&s, &x2, &w2, &[1, 1, 1, 1], "VALID").unwrap();
    assert_eq!(f32s(&run(&y2)), vec![201.0, 2010.0, 403.0, 4030.0]);
}

/// Direct-loop convolution in f64 (NHWC, HWIO).
fn reference_conv(
    x: &[f64],
    xs: [usize; 4],
    f: &[f64],
    fs: [usize; 4],
    st: (usize, usize),
    same: bool,
) -> (Vec<f64>, [usize; 4]) {
    let [n, h, w, c] = xs;
    let [kh, kw, _, o] = fs;
    let (oh, pt) = if same {
        let oh = h.div_ceil(st.0);
        (oh, ((oh - 1) * st.0 + kh).saturating_sub(h) / 2)
    } else {
        ((h - kh) / st.0 + 1, 0)
    };
    let (ow, pl) = if same {
        let ow = w.div_ceil(st.1);
        (ow, ((ow - 1) * st.1 + kw).saturating_sub(w) / 2)
    } else {
        ((w - kw) / st.1 + 1, 0)
    };
    let mut out = vec![0.0; n * oh * ow * o];
    for b in 0..n {
        for y in 0..oh {
            for xx in 0..ow {
                for oc in 0..o {
                    let mut acc = 0.0;
                    for ky in 0..kh {
                        for kx in 0..kw {
                            let iy = (y * st.0 + ky) as i64 - pt as i64;
                            let ix = (xx * st.1 + kx) as i64 - pl as i64;
                            if iy < 0 || ix < 0 || iy >= h as i64 || ix >= w as i64 {
                                continue;
                            }
                            for ic in 0..c {
                                acc += x[((b * h + iy as usize) * w + ix as usize) * c + ic]
                                    * f[((ky * kw + kx) * c + ic) * o + oc];
                            }
                        }
                    }
                    out[((b * oh + y) * ow + xx) * o + oc] = acc;
                }
            }
        }
    }
    (out, [n, oh, ow, o])
}

/// (input shape, filter shape, strides, SAME padding)
type ConvCase = ([usize; 4], [usize; 4], (usize, usize), bool);

#[test]
fn conv2d_matches_direct_loops() {
    let cases: &[ConvCase] = &[
        ([2, 7, 7, 2], [3, 3, 2, 3], (1, 1), true),
        ([2, 7, 7, 2], [3, 3, 2, 3], (2, 2), true),
        ([2, 7, 6, 2], [3, 2, 2, 3], (2, 1), false),
        ([1, 8, 8, 3], [5, 5, 3, 4], (3, 3), true),
        ([1, 8, 8, 3], [1, 1, 3, 4], (2, 2), false),
        ([3, 5, 4, 1], [4, 4, 1, 2], (1, 1), true),
        ([1, 2, 2, 1], [3, 3, 1, 1], (1, 1), true),
    ];
    for (i, &(xs, fs, st, same)) in cases.iter().enumerate() {
        let xv = values(xs.iter().product(), 100 + i as u64, -1.0, 1.0);
        let fv = values(fs.iter().product(), 200 + i as u64, -1.0, 1.0);
        let (want, ws) = reference_conv(&xv, xs, &fv, fs, st, same);
        for dtype in [DType::Double, DType::Float] {
            let g = Graph::new();
            let s = g.scope();
            let x = ops::constant(&s, Tensor::from_f64(dtype, &xs, &xv).unwrap()).unwrap();
            let f = ops::constant(&s, Tensor::from_f64(dtype, &fs, &fv).unwrap()).unwrap();
            let pad = if same { "SAME" } else { "VALID" };
            let y = ops::conv2d(&s, &x, &f, &[st.0 as i64, st.1 as i64], pad).unwrap();
            assert_eq!(y.shape(), Shape::known(&ws), "case {i}");
            let got = run(&y).to_f64_vec().unwrap();
            let tol = if dtype == DType::Double { 1e-12 } else { 1e-5 };
            for (j, (a, b)) in got.iter().zip(&want).enumerate() {
                assert!((a - b).abs() <= tol * (1.0 + b.abs()), "case {i} {dtype} [{j}]: {a} vs {b}");
            }
        }
    }
}

#[test]
fn conv2d_partial_shapes_and_errors() {
    let g = Graph::new();
    let s = g.scope();
    let p = ops::placeholder(&s, DType::Float, [None, Some(8), Some(8), Some(1)]).unwrap();
    let w = cf32(&s, &[3, 3, 1, 4], vec![0.0; 36]);
    assert_eq!(
        ops::conv2d(&s, &p, &w, &[1, 2, 2, 1], "SAME").unwrap().shape(),
        Shape::partial(&[None, Some(4), Some(4), Some(4)])
    );
    assert_eq!(
        ops::conv2d(&s, &p, &w, &[1, 1, 1, 1], "VALID").unwrap().shape(),
        Shape::partial(&[None, Some(6), Some(6), Some(4)])
    );
    // depth mismatch names both shapes
    let w2 = cf32(&s, &[3, 3, 2, 4], vec![0.0; 72]);
    let e = ops::conv2d(&s, &p, &w2, &[1, 1, 1, 1], "SAME").unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("[?, 8, 8, 1]") && e.message.contains("[3, 3, 2, 4]"), "{e}");
    // window larger than a VALID input
    let small = cf32(&s, &[1, 2, 2, 1], vec![0.0; 4]);
    let e = ops::conv2d(&s, &small, &w, &[1, 1, 1, 1], "VALID").unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("negative"), "{e}");
    // rank
    let r3 = cf32(&s, &[2, 2, 1], vec![0.0; 4]);
    assert_eq!(ops::conv2d(&s, &r3, &w, &[1, 1, 1, 1], "SAME").unwrap_err().code, Code::InvalidArgument);
    // padding EXPLICIT without its explicit_paddings: InvalidArgument; NCHW, batch
    // dilations or strides: Unimplemented (spatial dilations run: tests/conv_dilations.rs)
    let e = ops::conv2d(&s, &p, &w, &[1, 1, 1, 1], "EXPLICIT").unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("explicit_paddings must be 8 non-negative values"), "{e}");
    let build = |fmt: &str, dil: Vec<i64>, strides: Vec<i64>| {
        s.op("Conv2D", "Conv2D")
            .input(&p)
            .input(&w)
            .attr("T", DType::Float)
            .attr("strides", AttrValue::ListInt(strides))
            .attr("padding", "SAME")
            .attr("data_format", fmt)
            .attr("dilations", AttrValue::ListInt(dil))
            .build()
    };
    let e = build("NCHW", vec![1, 1, 1, 1], vec![1, 1, 1, 1]).err().unwrap();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("NCHW"), "{e}");
    assert!(build("NHWC", vec![1, 2, 2, 1], vec![1, 1, 1, 1]).is_ok());
    let e = build("NHWC", vec![2, 1, 1, 1], vec![1, 1, 1, 1]).err().unwrap();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("dilations"), "{e}");
    assert_eq!(build("NHWC", vec![1, 1, 1, 1], vec![2, 1, 1, 1]).err().unwrap().code, Code::Unimplemented);
    assert!(build("NHWC", vec![1, 1, 1, 1], vec![1, 1, 1, 1]).is_ok());
    // int32 conv is not supported
    let xi = ops::constant(&s, Tensor::new(&[1, 2, 2, 1], vec![1i32; 4]).unwrap()).unwrap();
    let wi = ops::constant(&s, Tensor::new(&[1, 1, 1, 1], vec![1i32]).unwrap()).unwrap();
    assert_eq!(ops::conv2d(&s, &xi, &wi, &[1], "SAME").unwrap_err().code, Code::InvalidArgument);
    // run time: fed input of the wrong depth
    let u = ops::placeholder(&s, DType::Float, Shape::unknown()).unwrap();
    let y = ops::conv2d(&s, &u, &w, &[1], "SAME").unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess.run(&[(&u, Tensor::new(&[1, 3, 3, 2], vec![0f32; 18]).unwrap())], &[&y], &[]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("[1, 3, 3, 2]") && e.message.contains("[3, 3, 1, 4]"), "{e}");
}

#[test]
fn conv2d_gradients() {
    for (xs, fs, st, pad) in [
        ([2, 5, 5, 2], [3, 3, 2, 3], [1, 2, 2, 1], "SAME"),
        ([1, 4, 5, 2], [2, 3, 2, 2], [1, 1, 1, 1], "VALID"),
        ([1, 6, 6, 1], [3, 3, 1, 2], [1, 3, 2, 1], "VALID"),
        ([2, 4, 4, 1], [3, 3, 1, 1], [1, 1, 1, 1], "SAME"),
    ] {
        let inp = vec![one(&xs, 70, -1.0, 1.0), one(&fs, 71, -1.0, 1.0)];
        let g = Graph::new();
        let probe = ops::placeholder(&g.scope(), DType::Double, xs.to_vec()).unwrap();
        let w = ops::placeholder(&g.scope(), DType::Double, fs.to_vec()).unwrap();
        let out_shape = ops::conv2d(&g.scope(), &probe, &w, &st, pad).unwrap().shape().to_vec().unwrap();
        check_gradients(&inp, TOL, |s, x| {
            weighted(s, &ops::conv2d(s, &x[0], &x[1], &st, pad).unwrap(), &out_shape, 72)
        });
    }
}

#[test]
fn conv2d_backprop_ops_and_their_gradients() {
    // Conv2DBackpropInput(input_sizes, filter, dy) and Conv2DBackpropFilter(x, filter_sizes, dy)
    let xs = [1usize, 4, 4, 2];
    let fs = [3usize, 3, 2, 2];
    let dys = [1usize, 2, 2, 2];
    let inp = vec![one(&fs, 80, -1.0, 1.0), one(&dys, 81, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| {
        let sizes = ops::constant(s, Tensor::vector(xs.iter().map(|&d| d as i32).collect::<Vec<_>>())).unwrap();
        let y = ops::conv2d_backprop_input(s, &sizes, &x[0], &x[1], &[1, 2, 2, 1], "SAME").unwrap();
        assert_eq!(y.shape(), Shape::known(&xs));
        weighted(s, &y, &xs, 82)
    });
    let inp = vec![one(&xs, 83, -1.0, 1.0), one(&dys, 84, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| {
        let sizes = ops::constant(s, Tensor::vector(fs.iter().map(|&d| d as i32).collect::<Vec<_>>())).unwrap();
        let y = ops::conv2d_backprop_filter(s, &x[0], &sizes, &x[1], &[1, 2, 2, 1], "SAME").unwrap();
        assert_eq!(y.shape(), Shape::known(&fs));
        weighted(s, &y, &fs, 85)
    });
    // wrong out_backprop shape is an error naming both shapes
    let g = Graph::new();
    let s = g.scope();
    let sizes = ops::constant(&s, Tensor::vector(vec![1i32, 4, 4, 2])).unwrap();
    let f = ops::constant(&s, Tensor::zeros(DType::Float, &fs)).unwrap();
    let dy = ops::constant(&s, Tensor::zeros(DType::Float, &[1, 3, 3, 2])).unwrap();
    let y = ops::conv2d_backprop_input(&s, &sizes, &f, &dy, &[1, 2, 2, 1], "SAME").unwrap();
    let e = Session::new(&g).unwrap().run(&[], &[&y], &[]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("[1, 3, 3, 2]") && e.message.contains("[1, 2, 2, 2]"), "{e}");
}

#[test]
fn pooling_hand_computed() {
    let g = Graph::new();
    let s = g.scope();
    let x16 = cf32(&s, &[1, 4, 4, 1], (1..=16).map(|v| v as f32).collect());
    let m = ops::max_pool(&s, &x16, &[1, 2, 2, 1], &[1, 2, 2, 1], "VALID").unwrap();
    assert_eq!(m.name(), "MaxPool:0");
    assert_eq!(m.shape(), Shape::known(&[1, 2, 2, 1]));
    assert_eq!(m.op().node().attrs.get("ksize").unwrap(), &AttrValue::ListInt(vec![1, 2, 2, 1]));
    assert_eq!(f32s(&run(&m)), vec![6.0, 8.0, 14.0, 16.0]);
    let a = ops::avg_pool(&s, &x16, &[2], &[2], "VALID").unwrap();
    assert_eq!(a.name(), "AvgPool:0");
    assert_eq!(f32s(&run(&a)), vec![3.5, 5.5, 11.5, 13.5]);
    // SAME on 3x3 with 2x2 windows, stride 2: windows rows {0,1},{2}; AvgPool divides by
    // the number of elements inside the input
    let x9 = nine(&s);
    let m = ops::max_pool(&s, &x9, &[2], &[2], "SAME").unwrap();
    assert_eq!(m.shape(), Shape::known(&[1, 2, 2, 1]));
    assert_eq!(f32s(&run(&m)), vec![5.0, 6.0, 8.0, 9.0]);
    let a = ops::avg_pool(&s, &x9, &[2], &[2], "SAME").unwrap();
    assert_eq!(f32s(&run(&a)), vec![3.0, 4.5, 7.5, 9.0]);
    // 3x3 SAME stride 1: corner windows have 4 valid elements, edges 6, centre 9
    let a = ops::avg_pool(&s, &x9, &[3], &[1], "SAME").unwrap();
    assert_eq!(f32s(&run(&a)), vec![3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0]);
    // padding never wins the max, even for negative inputs
    let neg = cf32(&s, &[1, 2, 2, 1], vec![-4.0, -3.0, -2.0, -1.0]);
    assert_eq!(f32s(&run(&ops::max_pool(&s, &neg, &[3], &[1], "SAME").unwrap())), vec![-1.0; 4]);
    // channels pool independently; int32 max pool
    let xc = ops::constant(&s, Tensor::new(&[1, 2, 2, 2], vec![1i32, 8, 2, 7, 3, 6, 4, 5]).unwrap()).unwrap();
    assert_eq!(run(&ops::max_pool(&s, &xc, &[2], &[2], "VALID").unwrap()).to_vec::<i32>().unwrap(), vec![4, 8]);
    // batch of 2 with 2 channels, avg
    let xb = cf32(&s, &[2, 2, 2, 2], (0..16).map(|v| v as f32).collect());
    assert_eq!(f32s(&run(&ops::avg_pool(&s, &xb, &[2], &[2], "VALID").unwrap())), vec![3.0, 4.0, 11.0, 12.0]);
}

#[test]
fn pooling_errors() {
    let g = Graph::new();
    let s = g.scope();
    let x = nine(&s);
    let e = ops::max_pool(&s, &x, &[4], &[1], "VALID").unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("[1, 3, 3, 1]"), "{e}");
    // TensorFlow's AvgPool allows SAME and VALID only (MaxPool also EXPLICIT)
    let e = ops::avg_pool(&s, &x, &[2], &[1], "EXPLICIT").unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("not in the list of allowed values: \"SAME\", \"VALID\""), "{e}");
    assert_eq!(ops::avg_pool(&s, &x, &[2], &[1], "FULL").unwrap_err().code, Code::InvalidArgument);
    let e = s
        .op("MaxPool", "MaxPool")
        .input(&x)
        .attr("T", DType::Float)
        .attr("ksize", AttrValue::ListInt(vec![1, 1, 2, 2]))
        .attr("strides", AttrValue::ListInt(vec![1, 1, 1, 1]))
        .attr("padding", "VALID")
        .attr("data_format", "NCHW")
        .build()
        .unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("NCHW"), "{e}");
    let xi = ops::constant(&s, Tensor::new(&[1, 2, 2, 1], vec![1i32; 4]).unwrap()).unwrap();
    assert_eq!(ops::avg_pool(&s, &xi, &[2], &[1], "VALID").unwrap_err().code, Code::InvalidArgument);
    let r3 = cf32(&s, &[3, 3, 1], vec![0.0; 9]);
    assert_eq!(ops::max_pool(&s, &r3, &[2], &[1], "VALID").unwrap_err().code, Code::InvalidArgument);
}

#[test]
fn pooling_gradients() {
    // distinct values so that each window has a single maximum
    let n = 2 * 5 * 5 * 2;
    let mut v: Vec<f64> = (0..n).map(|i| ((i * 37) % n) as f64 / n as f64).collect();
    v.iter_mut().enumerate().for_each(|(i, x)| *x += 0.001 * (i % 3) as f64);
    let inp = vec![(vec![2, 5, 5, 2], v)];
    for (k, st, pad, os) in [
        ([1, 2, 2, 1], [1, 2, 2, 1], "SAME", [2, 3, 3, 2]),
        ([1, 3, 3, 1], [1, 2, 2, 1], "VALID", [2, 2, 2, 2]),
        ([1, 3, 2, 1], [1, 1, 1, 1], "SAME", [2, 5, 5, 2]),
    ] {
        check_gradients(&inp, TOL, |s, x| weighted(s, &ops::max_pool(s, &x[0], &k, &st, pad).unwrap(), &os, 90));
        check_gradients(&inp, TOL, |s, x| weighted(s, &ops::avg_pool(s, &x[0], &k, &st, pad).unwrap(), &os, 91));
    }
    // AvgPoolGrad is linear in its gradient input; its own gradient is AvgPool
    let inp = vec![one(&[1, 2, 2, 1], 92, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| {
        let shape = ops::constant(s, Tensor::vector(vec![1i32, 3, 3, 1])).unwrap();
        let y = s
            .op("AvgPoolGrad", "AvgPoolGrad")
            .input(&shape)
            .input(&x[0])
            .attr("T", DType::Double)
            .attr("ksize", AttrValue::ListInt(vec![1, 2, 2, 1]))
            .attr("strides", AttrValue::ListInt(vec![1, 2, 2, 1]))
            .attr("padding", "SAME")
            .attr("data_format", "NHWC")
            .build_output()
            .unwrap();
        assert_eq!(y.shape(), Shape::known(&[1, 3, 3, 1]));
        weighted(s, &y, &[1, 3, 3, 1], 93)
    });
}

// ---------------------------------------------------------------- cnn_frozen fixture

/// Reads a float32 `.npy` file.
fn read_npy_f32(path: &std::path::Path) -> Tensor {
    let t = Tensor::read_npy(path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.dtype(), tensorgraph::DType::Float, "{}", path.display());
    t
}

/// rtol 1e-4, atol 1e-5.
fn assert_close(what: &str, got: &Tensor, want: &Tensor) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let (g, w) = (got.to_f64_vec().unwrap(), want.to_f64_vec().unwrap());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        assert!((a - b).abs() <= 1e-5 + 1e-4 * b.abs(), "{what}[{i}]: got {a}, TensorFlow {b}");
    }
}

const INTERMEDIATES: [(&str, &str); 6] = [
    ("conv1/Relu:0", "intermediate_conv1_relu.npy"),
    ("pool1:0", "intermediate_pool1.npy"),
    ("conv2/Relu:0", "intermediate_conv2_relu.npy"),
    ("pool2:0", "intermediate_pool2.npy"),
    ("fc/logits:0", "intermediate_logits.npy"),
    ("probs:0", "expected.npy"),
];

#[test]
fn cnn_frozen_rebuilt_from_manifest() {
    let dir = common::fixtures().join("cnn_frozen");
    let m = common::manifest("cnn_frozen");
    let w = |name: &str| common::f32_tensor(&m["weights"][name]);
    let g = Graph::new();
    let s = g.scope();
    let input = ops::placeholder(&s.named("input"), DType::Float, [None, Some(8), Some(8), Some(1)]).unwrap();
    let k = |name: &str| ops::constant(&s.named(name), w(name)).unwrap();
    let c1 = ops::conv2d(&s.named("conv1/Conv2D"), &input, &k("conv1/weights"), &[1, 1, 1, 1], "SAME").unwrap();
    let c1 = ops::bias_add(&s.named("conv1/BiasAdd"), &c1, &k("conv1/biases")).unwrap();
    let c1 = ops::relu(&s.named("conv1/Relu"), &c1).unwrap();
    let p1 = ops::max_pool(&s.named("pool1"), &c1, &[1, 2, 2, 1], &[1, 2, 2, 1], "VALID").unwrap();
    assert_eq!(p1.shape(), Shape::partial(&[None, Some(4), Some(4), Some(4)]));
    let c2 = ops::conv2d(&s.named("conv2/Conv2D"), &p1, &k("conv2/weights"), &[1, 2, 2, 1], "VALID").unwrap();
    let c2 = ops::relu(&s.named("conv2/Relu"), &c2).unwrap();
    assert_eq!(c2.shape(), Shape::partial(&[None, Some(2), Some(2), Some(6)]));
    let p2 = ops::avg_pool(&s.named("pool2"), &c2, &[1, 2, 2, 1], &[1, 2, 2, 1], "VALID").unwrap();
    let flat = ops::reshape_to(&s.named("flatten"), &p2, &[-1, 6]).unwrap();
    let mm = ops::matmul(&s.named("fc/MatMul"), &flat, &k("fc/weights")).unwrap();
    let logits = ops::add(&s.named("fc/logits"), &mm, &k("fc/biases")).unwrap();
    let probs = ops::softmax(&s.named("probs"), &logits).unwrap();
    let x = read_npy_f32(&dir.join("input.npy"));
    assert_eq!(x.shape(), &[4, 8, 8, 1]);
    let sess = Session::new(&g).unwrap();
    let fetch = [&c1, &p1, &c2, &p2, &logits, &probs];
    let got = sess.run(&[(&input, x)], &fetch, &[]).unwrap();
    for ((name, file), t) in INTERMEDIATES.iter().zip(&got) {
        assert_eq!(g.tensor_by_name(name).unwrap().name(), *name);
        assert_close(name, t, &read_npy_f32(&dir.join(file)));
    }
}

#[test]
fn cnn_frozen_imported_from_graph_def() {
    use tensorgraph::io::graph_def::{import_graph_def, read_graph_def, ImportGraphDefOptions};
    let dir = common::fixtures().join("cnn_frozen");
    let gd = read_graph_def(dir.join("frozen.pb")).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &gd, &ImportGraphDefOptions::new()).unwrap();
    let input = g.tensor_by_name("import/input:0").unwrap();
    let fetch: Vec<Output> =
        INTERMEDIATES.iter().map(|(n, _)| g.tensor_by_name(&format!("import/{n}")).unwrap()).collect();
    let refs: Vec<&Output> = fetch.iter().collect();
    let sess = Session::new(&g).unwrap();
    let got = sess.run(&[(&input, read_npy_f32(&dir.join("input.npy")))], &refs, &[]).unwrap();
    for ((name, file), t) in INTERMEDIATES.iter().zip(&got) {
        assert_close(name, t, &read_npy_f32(&dir.join(file)));
    }
}

#[test]
fn pooling_with_a_window_far_larger_than_the_input_visits_only_the_input() {
    // SAME padding with a huge ksize: each window covers the whole 2x2 input; the kernel
    // loops over the input, not over the window (this used to run for hours)
    let g = Graph::new();
    let s = g.scope();
    let x = cf32(&s, &[1, 2, 2, 1], vec![1., 2., 3., 4.]);
    let k = [1, 1 << 40, 1 << 40, 1];
    let mx = ops::max_pool(&s, &x, &k, &[1, 1, 1, 1], "SAME").unwrap();
    assert_eq!(f32s(&run(&mx)), [4., 4., 4., 4.]);
    let avg = ops::avg_pool(&s, &x, &k, &[1, 1, 1, 1], "SAME").unwrap();
    assert_eq!(f32s(&run(&avg)), [2.5, 2.5, 2.5, 2.5]);
}
