//! The image ops CropAndResize (with CropAndResizeGradImage and CropAndResizeGradBoxes),
//! ResizeBicubic (with ResizeBicubicGrad), MaxPoolWithArgmax (with MaxPoolGradWithArgmax),
//! Dilation2D (with Dilation2DBackpropInput/Filter) and ExtractImagePatches against
//! TensorFlow 2.21: a graph TensorFlow built with its own gradient subgraphs
//! (`tests/data/ops_nn6/image.pbtxt`, by `scripts/gen_ops_nn6.py`) imports, every output
//! equals TensorFlow's (`image.json`: rel 1e-5, exact for integers), the nodes TensorFlow's
//! kernels refuse fail here with TensorFlow's status and message, the shape functions refuse
//! the same static cases, and every gradient added matches finite differences. The same for
//! `counts.pbtxt`: SparseToDense, ComputeAccidentalHits, HistogramFixedWidth, DenseBincount
//! and the string ops AsString, StringToNumber, StringLength, Substr.
//!
//! The compare loops are a small copy of `tests/ops_nn4.rs`'s (another branch may move
//! those into `tests/common/`; this copy also maps TensorFlow's error classes to codes).

mod common;
use common::{check_gradients, one, repo_root, values, weighted};
use tensorgraph::io::graph_def::{read_graph_def_any, ImportGraphDefOptions};
use tensorgraph::ops;
use tensorgraph::train::gradients;
use tensorgraph::{Code, DType, Graph, Output, Scope, Session, Tensor};

fn json(name: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(repo_root().join(format!("tests/data/ops_nn6/{name}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn imported(name: &str) -> Graph {
    let gd = read_graph_def_any(repo_root().join(format!("tests/data/ops_nn6/{name}.pbtxt"))).unwrap();
    let g = Graph::new();
    g.import_graph_def(&gd, &ImportGraphDefOptions::new()).unwrap();
    g
}

/// Asserts `got` equals TensorFlow's `want` (the json's `{dtype, shape, values}`).
fn assert_matches(key: &str, got: &Tensor, want: &serde_json::Value) {
    let shape: Vec<usize> = want["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
    assert_eq!(got.shape(), shape.as_slice(), "{key}: shape");
    assert_eq!(got.dtype().name(), want["dtype"].as_str().unwrap(), "{key}: dtype");
    if let tensorgraph::tensor::Storage::Str(v) = got.storage() {
        let want: Vec<&str> = want["values"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
        let got: Vec<String> = v.iter().map(|s| String::from_utf8_lossy(s).into_owned()).collect();
        assert_eq!(got, want, "{key}");
        return;
    }
    let exact = !matches!(got.dtype(), DType::Float | DType::Double);
    for (i, (g, w)) in got.to_f64_vec().unwrap().iter().zip(want["values"].as_array().unwrap()).enumerate() {
        match w.as_f64() {
            None => assert!(g.is_nan(), "{key}[{i}]: got {g}, TensorFlow NaN"),
            Some(w) if exact => assert_eq!(*g, w, "{key}[{i}]"),
            Some(w) => assert!((g - w).abs() <= 1e-5 * w.abs().max(1.0), "{key}[{i}]: got {g}, TensorFlow {w}"),
        }
    }
}

/// Imports `<name>.pbtxt`, runs every output `<name>.json` lists and compares.
fn runs_to_tensorflows_values(name: &str, at_least: usize) {
    let exp = json(name);
    let outs = exp["outputs"].as_object().unwrap();
    assert!(outs.len() >= at_least, "the json lists every output");
    let g = imported(name);
    let sess = Session::new(&g).unwrap();
    for (key, want) in outs {
        let name = format!("import/{}", want["tensor"].as_str().unwrap());
        let t = g.tensor_by_name(&name).unwrap_or_else(|e| panic!("{key}: {e}"));
        let r = sess.run(&[], &[&t], &[]).unwrap_or_else(|e| panic!("{key} ({name}): {e}")).remove(0);
        assert_matches(key, &r, want);
    }
}

/// Runs every node `<name>.json` lists under `errors`: each fails with TensorFlow's status
/// and message.
fn refuses_as_tensorflow(name: &str, at_least: usize) {
    let exp = json(name);
    let errs = exp["errors"].as_object().unwrap();
    assert!(errs.len() >= at_least);
    let g = imported(name);
    let sess = Session::new(&g).unwrap();
    for (key, want) in errs {
        let name = format!("import/{}", want["tensor"].as_str().unwrap());
        let t = g.tensor_by_name(&name).unwrap_or_else(|e| panic!("{key}: {e}"));
        let e = sess.run(&[], &[&t], &[]).err().unwrap_or_else(|| panic!("{key} ({name}) ran"));
        let code = match want["error"].as_str().unwrap() {
            "InvalidArgumentError" => Code::InvalidArgument,
            "OutOfRangeError" => Code::OutOfRange,
            other => panic!("{key}: no code for {other}"),
        };
        assert_eq!(e.code, code, "{key}: {e}");
        let msg = want["message"].as_str().unwrap();
        assert!(e.message.contains(msg), "{key}: got {:?}, TensorFlow {msg:?}", e.message);
    }
}

/// The part of a TensorFlow shape-function error before ` for '{{node ...`.
fn build_error(exp: &serde_json::Value, key: &str) -> String {
    let m = exp["build_errors"][key].as_str().unwrap_or_else(|| panic!("{key}: no TensorFlow error"));
    m.split(" for '{{node").next().unwrap().to_string()
}

fn assert_build_error<T: std::fmt::Debug>(exp: &serde_json::Value, key: &str, r: tensorgraph::Result<T>) {
    let want = build_error(exp, key);
    let e = r.err().unwrap_or_else(|| panic!("{key}: built"));
    assert_eq!(e.code, Code::InvalidArgument, "{key}: {e}");
    assert!(e.message.contains(&want), "{key}: got {:?}, TensorFlow {want:?}", e.message);
}

fn c<T: tensorgraph::tensor::Element>(s: &Scope, shape: &[usize], v: Vec<T>) -> Output {
    ops::constant(s, Tensor::new(shape, v).unwrap()).unwrap()
}

/// CropAndResize (bilinear, nearest, extrapolation, flipped and one-pixel boxes, integer
/// images) and TensorFlow's gradient subgraph of it, ResizeBicubic (legacy, align_corners,
/// half-pixel Keys) with ResizeBicubicGrad, MaxPoolWithArgmax (both Targmax, ties,
/// include_batch_in_index) with MaxPoolGradWithArgmax, Dilation2D with its backprop ops,
/// ExtractImagePatches (SAME, VALID, rates): TensorFlow's values.
#[test]
fn image_ops_run_to_tensorflows_values() {
    runs_to_tensorflows_values("image", 90);
}

/// Boxes of the wrong shape, box_ind out of range (`OutOfRange`), bad crop sizes, a 3-d
/// image: TensorFlow's status and message.
#[test]
fn image_kernels_refuse_what_tensorflows_refuse() {
    refuses_as_tensorflow("image", 9);
}

#[test]
fn image_shape_functions_refuse_what_tensorflows_refuse() {
    let exp = json("image");
    let g = Graph::new();
    let s = g.scope();
    let img = c(&s, &[2, 5, 6, 3], vec![0f32; 180]);
    let b = |v: Vec<f32>| {
        let n = v.len();
        c(&s, &[n / 4, 4], v)
    };
    let r = ops::crop_and_resize(
        &s,
        &img,
        &c(&s, &[1, 3], vec![0f32, 0.0, 1.0]),
        &c(&s, &[1], vec![0i32]),
        [2, 2],
        "bilinear",
        0.0,
    );
    assert_build_error(&exp, "crop_boxes_cols", r);
    let r = ops::crop_and_resize(
        &s,
        &img,
        &b(vec![0.0, 0.0, 1.0, 1.0]),
        &c(&s, &[2], vec![0i32, 1]),
        [2, 2],
        "bilinear",
        0.0,
    );
    assert_build_error(&exp, "crop_box_ind_len", r);
    let img3 = c(&s, &[5, 6, 3], vec![0f32; 90]);
    let r = ops::crop_and_resize(
        &s,
        &img3,
        &b(vec![0.0, 0.0, 1.0, 1.0]),
        &c(&s, &[1], vec![0i32]),
        [2, 2],
        "bilinear",
        0.0,
    );
    assert_build_error(&exp, "crop_image_rank", r);
    let one = [1i64, 1, 1, 1];
    let r = ops::dilation2d(&s, &img, &c(&s, &[2, 2, 2], vec![0f32; 8]), one, one, "SAME");
    assert_build_error(&exp, "dil_filter_depth", r);
    let r = ops::dilation2d(&s, &img, &c(&s, &[4, 2, 3], vec![0f32; 24]), one, [1, 2, 1, 1], "VALID");
    assert_build_error(&exp, "dil_valid_large", r);
    let r = ops::extract_image_patches(&s, &img3, [1, 2, 2, 1], one, one, "VALID");
    assert_build_error(&exp, "patches_rank", r);
    let r = ops::max_pool_with_argmax(&s, &img3, &[2], &[2], "VALID", DType::Int64, false);
    assert_build_error(&exp, "argmax_rank", r);
}

/// The builders give the ops TensorFlow's graph holds: run on the imported image, they
/// reproduce TensorFlow's values.
#[test]
fn built_image_ops_match_tensorflow() {
    let exp = json("image");
    let g = imported("image");
    let s = g.scope();
    let img = g.tensor_by_name("import/img:0").unwrap();
    let boxes = g.tensor_by_name("import/boxes:0").unwrap();
    let ind = g.tensor_by_name("import/box_ind:0").unwrap();
    let crop = ops::crop_and_resize(&s, &img, &boxes, &ind, [4, 3], "nearest", -1.5).unwrap();
    assert_eq!(crop.shape(), tensorgraph::Shape::known(&[5, 4, 3, 3]));
    let bicubic = ops::resize_bicubic(&s, &img, [7, 9], false, true).unwrap();
    let (pooled, argmax) =
        ops::max_pool_with_argmax(&s, &img, &[1, 3, 2, 1], &[2], "SAME", DType::Int32, true).unwrap();
    let patches = ops::extract_image_patches(&s, &img, [1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 2, 1], "VALID").unwrap();
    let sess = Session::new(&g).unwrap();
    let r = sess.run(&[], &[&crop, &bicubic, &pooled, &argmax, &patches], &[]).unwrap();
    let o = &exp["outputs"];
    assert_matches("crop", &r[0], &o["crop_nearest_m1_5_4x3"]);
    assert_matches("bicubic", &r[1], &o["bicubic_hp_7x9"]);
    assert_matches("argmax", &r[2], &o["argmax_SAME_1_int32"]);
    assert_matches("argmax idx", &r[3], &o["argmax_SAME_1_int32_idx"]);
    assert_matches("patches", &r[4], &o["patches_VALID_32_23_12"]);
}

/// Central differences with step `h` of `sum(f(inputs))` for inputs of any float dtype
/// (`(dtype, shape, values)`), against the symbolic gradients: for ops computing in float32,
/// whose differences need a larger step than `common::check_gradients`' float64 one.
fn check_gradients_with_step(
    inputs: &[(DType, Vec<usize>, Vec<f64>)],
    h: f64,
    tol: f64,
    f: impl Fn(&Scope, &[Output]) -> Output,
) {
    let g = Graph::new();
    let s = g.scope();
    let phs: Vec<Output> =
        inputs.iter().map(|(d, shape, _)| ops::placeholder(&s, *d, shape.clone()).unwrap()).collect();
    let y = ops::reduce_sum(&s, &f(&s, &phs), None, false).unwrap();
    let grads = gradients(std::slice::from_ref(&y), &phs, None).unwrap();
    let sess = Session::new(&g).unwrap();
    let run = |vals: &[Vec<f64>], t: &Output| {
        let feeds: Vec<(&Output, Tensor)> = phs
            .iter()
            .zip(inputs)
            .zip(vals)
            .map(|((p, (d, sh, _)), v)| (p, Tensor::from_f64(*d, sh, v).unwrap()))
            .collect();
        sess.run(&feeds, &[t], &[]).unwrap()[0].to_f64_vec().unwrap()
    };
    let base: Vec<Vec<f64>> = inputs.iter().map(|(_, _, v)| v.clone()).collect();
    for (i, gi) in grads.iter().enumerate() {
        let gi = gi.as_ref().unwrap_or_else(|| panic!("no gradient for input {i}"));
        let sym = run(&base, gi);
        for j in 0..base[i].len() {
            let (mut up, mut dn) = (base.clone(), base.clone());
            up[i][j] += h;
            dn[i][j] -= h;
            let num = (run(&up, &y)[0] - run(&dn, &y)[0]) / (2.0 * h);
            let err = (num - sym[j]).abs() / sym[j].abs().max(1.0);
            assert!(err < tol, "input {i} element {j}: symbolic {} vs numeric {num} ({})", sym[j], gi.name());
        }
    }
}

/// A float32 result as float64, weighted, for the float64 gradient checks.
fn weighted_f64(s: &Scope, y: &Output, shape: &[usize], seed: u64) -> Output {
    weighted(s, &ops::cast(s, y, DType::Double).unwrap(), shape, seed)
}

#[test]
fn crop_and_resize_gradients_match_finite_differences() {
    let image = (DType::Double, vec![2, 5, 6, 3], values(180, 51, -2.0, 2.0));
    // sample positions kept away from whole pixels, where the bilinear weights have kinks
    let boxes = vec![0.1, 0.13, 0.85, 0.77, 0.6, 0.9, 0.2, 0.3, 0.35, 0.1, 0.35, 0.95];
    let boxes = (DType::Float, vec![3, 4], boxes);
    for method in ["bilinear", "nearest"] {
        // linear in the image: a large step is exact up to float32 rounding
        check_gradients_with_step(std::slice::from_ref(&image), 0.25, 1e-4, |s, x| {
            let b = c(s, &[3, 4], vec![0.1f32, 0.13, 0.85, 0.77, 0.6, 0.9, 0.2, 0.3, 0.35, 0.1, 0.35, 0.95]);
            let ind = c(s, &[3], vec![1i32, 0, 1]);
            let y = ops::crop_and_resize(s, &x[0], &b, &ind, [3, 4], method, 0.5).unwrap();
            assert_eq!(y.dtype(), DType::Float);
            weighted_f64(s, &y, &[3, 3, 4, 3], 52)
        });
    }
    // the boxes (bilinear only: nearest sampling is piecewise constant in the boxes)
    check_gradients_with_step(&[image.clone(), boxes], 1e-3, 5e-3, |s, x| {
        let ind = c(s, &[3], vec![1i32, 0, 1]);
        let y = ops::crop_and_resize(s, &x[0], &x[1], &ind, [3, 4], "bilinear", 0.0).unwrap();
        weighted_f64(s, &y, &[3, 3, 4, 3], 53)
    });
}

#[test]
fn resize_bicubic_gradient_matches_finite_differences() {
    for (ac, hp) in [(false, false), (true, false), (false, true)] {
        for size in [[7, 4], [2, 9]] {
            let image = (DType::Double, vec![1, 4, 5, 2], values(40, 61, -2.0, 2.0));
            check_gradients_with_step(&[image], 0.25, 1e-4, |s, x| {
                let y = ops::resize_bicubic(s, &x[0], size, ac, hp).unwrap();
                weighted_f64(s, &y, &[1, size[0] as usize, size[1] as usize, 2], 62)
            });
        }
    }
}

#[test]
fn max_pool_with_argmax_gradient_matches_finite_differences() {
    for (pad, batch) in [("SAME", false), ("VALID", true), ("SAME", true)] {
        check_gradients(&[one(&[2, 5, 6, 3], 71, -2.0, 2.0)], 1e-6, |s, x| {
            let (y, _) =
                ops::max_pool_with_argmax(s, &x[0], &[1, 3, 2, 1], &[1, 2, 2, 1], pad, DType::Int64, batch).unwrap();
            let shape: Vec<usize> = y.shape().to_vec().unwrap();
            weighted(s, &y, &shape, 72)
        });
    }
}

#[test]
fn dilation2d_gradients_match_finite_differences() {
    for (pad, strides, rates) in [
        ("SAME", [1, 1, 1, 1], [1, 1, 1, 1]),
        ("VALID", [1, 2, 1, 1], [1, 1, 2, 1]),
        ("SAME", [1, 2, 3, 1], [1, 2, 1, 1]),
    ] {
        check_gradients(&[one(&[2, 5, 6, 3], 81, -2.0, 2.0), one(&[2, 3, 3], 82, -1.0, 1.0)], 1e-6, |s, x| {
            let y = ops::dilation2d(s, &x[0], &x[1], strides, rates, pad).unwrap();
            let shape: Vec<usize> = y.shape().to_vec().unwrap();
            weighted(s, &y, &shape, 83)
        });
    }
}

/// SparseToDense (1-d, 2-d and scalar indices, scalar values, unvalidated order),
/// ComputeAccidentalHits, HistogramFixedWidth (int32 and int64 counts, values outside the
/// range), DenseBincount (weights, 2-d input, binary output), AsString (`%d`, `%f`, `%e`, `%g`,
/// width and fill), StringToNumber, StringLength (bytes, UTF-8 characters), Substr:
/// TensorFlow's values; SparseToDense's index checks, StringToNumber's bad strings, the
/// histogram's and bincount's checks and Substr's range: TensorFlow's messages.
#[test]
fn count_sparse_and_string_ops_match_tensorflow() {
    runs_to_tensorflows_values("counts", 30);
    refuses_as_tensorflow("counts", 14);
}

#[test]
fn sparse_to_dense_gradient_matches_finite_differences() {
    check_gradients(&[one(&[3], 91, -1.0, 1.0), one(&[], 92, -1.0, 1.0)], 1e-6, |s, x| {
        let ind = c(s, &[3, 2], vec![0i64, 1, 1, 0, 2, 3]);
        let shape = c(s, &[2], vec![3i64, 4]);
        let y = ops::array::sparse_to_dense::sparse_to_dense(s, &ind, &shape, &x[0], &x[1], true).unwrap();
        weighted(s, &y, &[3, 4], 93)
    });
}
