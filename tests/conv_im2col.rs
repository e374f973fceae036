//! `Conv2D` on the patch matrix (im2col): windows other than Winograd's, strided, dilated,
//! padded on every side, against a direct float64 convolution. The forward pass makes the
//! patch matrix a cache-sized run of output lines at a time, so the larger cases span
//! several runs, some starting in the middle of an image; float32 within 1e-5 of the
//! largest output, and bitwise the same with a constant filter and a fed one and on 1, 2
//! and 4 threads.

mod common;

use tensorgraph::graph::AttrValue;
use tensorgraph::{ops, DType, Graph, Output, Session, SessionOptions, Tensor};

#[path = "common/conv.rs"]
mod conv;

/// One convolution and its float64 reference.
type Case = conv::Conv;

const CASES: &[Case] = &[
    // ResNet50's stem shape, smaller: 7x7 stride 2 on 3 channels; 96 output lines of 4,704
    // patch values, two runs of lines, the second starting in image 1
    Case { n: 3, h: 64, w: 64, c: 3, o: 16, k: 7, stride: 2, dilation: 1, pad: [2, 3, 2, 3] },
    // 5x5 stride 1, uneven padding (windows cut on the left and right of every row)
    Case { n: 4, h: 30, w: 33, c: 5, o: 7, k: 5, stride: 1, dilation: 1, pad: [2, 1, 0, 3] },
    // a dilated 3x3 window (one copy per pixel, not per window row)
    Case { n: 2, h: 20, w: 19, c: 4, o: 6, k: 3, stride: 1, dilation: 2, pad: [1, 2, 2, 1] },
    // 1x1 stride 2 (ResNet50's downsampling shortcut)
    Case { n: 2, h: 9, w: 9, c: 8, o: 5, k: 1, stride: 2, dilation: 1, pad: [0; 4] },
];

fn f32_tensor(shape: &[usize], v: &[f64]) -> Tensor {
    Tensor::new(shape, v.iter().map(|&x| x as f32).collect::<Vec<_>>()).unwrap()
}

/// `Conv2D` of `case` with a constant filter and with the filter fed, on `threads` threads.
fn run(case: &Case, x: &[f64], filter: &[f64], threads: usize) -> [Tensor; 2] {
    let g = Graph::new();
    let s = g.scope();
    let fshape = [case.k, case.k, case.c, case.o];
    let xp = ops::placeholder(&s.named("x"), DType::Float, [case.n, case.h, case.w, case.c].map(Some)).unwrap();
    let fp = ops::placeholder(&s.named("f"), DType::Float, fshape.map(Some)).unwrap();
    let fc = ops::constant(&s.named("filter"), f32_tensor(&fshape, filter)).unwrap();
    let [t, b, l, r] = case.pad.map(|v| v as i64);
    let (st, d) = (case.stride as i64, case.dilation as i64);
    let conv = |name: &str, f: &Output| {
        s.op("Conv2D", name)
            .input(&xp)
            .input(f)
            .attr("T", DType::Float)
            .attr("strides", AttrValue::ListInt(vec![1, st, st, 1]))
            .attr("dilations", AttrValue::ListInt(vec![1, d, d, 1]))
            .attr("padding", "EXPLICIT")
            .attr("explicit_paddings", AttrValue::ListInt(vec![0, 0, t, b, l, r, 0, 0]))
            .build_output()
            .unwrap()
    };
    let (a, bb) = (conv("conv_const", &fc), conv("conv_fed", &fp));
    let sess = Session::with_options(&g, &SessionOptions::with_threads(threads).unwrap()).unwrap();
    let feeds = [(&xp, f32_tensor(&[case.n, case.h, case.w, case.c], x)), (&fp, f32_tensor(&fshape, filter))];
    let mut out = sess.run(&feeds, &[&a, &bb], &[]).unwrap();
    [out.remove(0), out.remove(0)]
}

#[test]
fn patch_matrix_convolutions_match_a_direct_float64_convolution() {
    for (i, case) in CASES.iter().enumerate() {
        let seed = 300 + 10 * i as u64;
        let x = common::values(case.n * case.h * case.w * case.c, seed, -1.0, 1.0);
        let filter = common::values(case.k * case.k * case.c * case.o, seed + 1, -0.5, 0.5);
        let want = case.reference(&x, &filter);
        let got = run(case, &x, &filter, 1);
        for t in &got {
            assert_eq!(t.shape(), case.out_shape(), "{case:?}");
            let v = t.to_vec::<f32>().unwrap();
            let scale = want.iter().fold(0f64, |m, w| m.max(w.abs()));
            let err = v.iter().zip(&want).fold(0f64, |m, (&g, w)| m.max((g as f64 - w).abs())) / scale;
            assert!(err <= 1e-5, "{case:?}: relative error {err:e}");
        }
        assert_eq!(got[0], got[1], "{case:?}: a constant filter and the same filter fed");
        for threads in [2, 4] {
            assert_eq!(run(case, &x, &filter, threads), got, "{case:?}: {threads} threads against 1");
        }
    }
}

/// A batch of no images gives an empty output of the right shape on every path (Winograd,
/// 1x1, patch matrix), and the same session then computes a batch of one as the direct
/// float64 convolution does (the constant filter is prepared by the first run that needs it).
#[test]
fn an_empty_batch_then_one_image() {
    let cases = [
        Case { n: 1, h: 12, w: 12, c: 64, o: 64, k: 3, stride: 1, dilation: 1, pad: [1; 4] },
        Case { n: 1, h: 6, w: 6, c: 24, o: 8, k: 1, stride: 1, dilation: 1, pad: [0; 4] },
        Case { n: 1, h: 15, w: 15, c: 3, o: 8, k: 7, stride: 2, dilation: 1, pad: [2, 3, 2, 3] },
    ];
    for (i, case) in cases.iter().enumerate() {
        let x = common::values(case.h * case.w * case.c, 500 + i as u64, -1.0, 1.0);
        let filter = common::values(case.k * case.k * case.c * case.o, 600 + i as u64, -0.5, 0.5);
        let g = Graph::new();
        let s = g.scope();
        let xp =
            ops::placeholder(&s.named("x"), DType::Float, [None, Some(case.h), Some(case.w), Some(case.c)]).unwrap();
        let fc = ops::constant(&s.named("filter"), f32_tensor(&[case.k, case.k, case.c, case.o], &filter)).unwrap();
        let [t, b, l, r] = case.pad.map(|v| v as i64);
        let st = case.stride as i64;
        let conv = s
            .op("Conv2D", "conv")
            .input(&xp)
            .input(&fc)
            .attr("T", DType::Float)
            .attr("strides", AttrValue::ListInt(vec![1, st, st, 1]))
            .attr("padding", "EXPLICIT")
            .attr("explicit_paddings", AttrValue::ListInt(vec![0, 0, t, b, l, r, 0, 0]))
            .build_output()
            .unwrap();
        let sess = Session::new(&g).unwrap();
        let [_, oh, ow, o] = case.out_shape();
        let empty = f32_tensor(&[0, case.h, case.w, case.c], &[]);
        let got = sess.run(&[(&xp, empty)], &[&conv], &[]).unwrap();
        assert_eq!(got[0].shape(), [0, oh, ow, o], "{case:?}");
        let one = f32_tensor(&[1, case.h, case.w, case.c], &x);
        let got = sess.run(&[(&xp, one)], &[&conv], &[]).unwrap()[0].to_vec::<f32>().unwrap();
        let want = case.reference(&x, &filter);
        let scale = want.iter().fold(0f64, |m, w| m.max(w.abs()));
        let err = got.iter().zip(&want).fold(0f64, |m, (&g, w)| m.max((g as f64 - w).abs())) / scale;
        assert!(err <= 1e-5, "{case:?}: relative error {err:e}");
    }
}
