//! `QuantizeV2` and `Dequantize` against TensorFlow 2.21, bit for bit: every quantized dtype
//! in every mode, with round_mode, narrow_range, per-axis ranges, bfloat16 output and the
//! widened ranges (`tests/data/quantize/cases.json`, written by `scripts/gen_quantize.py`
//! with TensorFlow's own CPU kernels); a TensorFlow-written graph using them
//! (`tests/data/quantize/quantize.pbtxt`); the errors in TensorFlow's words.

mod common;
use common::repo_root;
use serde_json::Value;
use tensorgraph::io::graph_def::{read_graph_def_any, ImportGraphDefOptions};
use tensorgraph::ops::{dequantize, quantize_v2, DequantizeOptions, QuantizeOptions};
use tensorgraph::{ops, Code, DType, Graph, Output, Session, Shape, Tensor};

fn cases() -> Value {
    let p = repo_root().join("tests/data/quantize/cases.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn dims(v: &Value) -> Vec<usize> {
    v.as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect()
}

/// float32 values from their bit patterns.
fn f32s(v: &Value) -> Vec<f32> {
    v.as_array().unwrap().iter().map(|b| f32::from_bits(b.as_u64().unwrap() as u32)).collect()
}

fn i64s(v: &Value) -> Vec<i64> {
    v.as_array().unwrap().iter().map(|b| b.as_i64().unwrap()).collect()
}

fn dtype(name: &str) -> DType {
    *DType::ALL.iter().find(|d| d.name() == name).unwrap()
}

fn c(g: &Graph, t: Tensor) -> Output {
    ops::constant(&g.scope(), t).unwrap()
}

fn f32_const(g: &Graph, shape: &[usize], v: Vec<f32>) -> Output {
    c(g, Tensor::new(shape, v).unwrap())
}

/// The integers of a quantized tensor (as [`Tensor::to_f64_vec`] gives them).
fn ints(t: &Tensor) -> Vec<i64> {
    t.to_f64_vec().unwrap().iter().map(|&x| x as i64).collect()
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn quantize_v2_matches_tensorflow_for_every_dtype_and_mode() {
    let all = cases();
    let qs = all["quantize"].as_array().unwrap();
    assert_eq!(qs.len(), 55);
    for case in qs {
        let what = format!("{} {}", case["T"], case["attrs"]);
        let g = Graph::new();
        let shape = dims(&case["shape"]);
        let rs = dims(&case["range_shape"]);
        let x = f32_const(&g, &shape, f32s(&case["input"]));
        let lo = f32_const(&g, &rs, f32s(&case["min_range"]));
        let hi = f32_const(&g, &rs, f32s(&case["max_range"]));
        let a = &case["attrs"];
        let mut o = QuantizeOptions::default();
        if let Some(m) = a["mode"].as_str() {
            o.mode = m.into();
        }
        if let Some(m) = a["round_mode"].as_str() {
            o.round_mode = m.into();
        }
        o.narrow_range = a["narrow_range"].as_bool().unwrap_or(false);
        o.axis = a["axis"].as_i64().unwrap_or(-1);
        let t = dtype(case["T"].as_str().unwrap());
        let (q, mn, mx) = quantize_v2(&g.scope(), &x, &lo, &hi, t, &o).unwrap();
        assert_eq!(q.dtype(), t);
        let d = dequantize(
            &g.scope(),
            &q,
            &mn,
            &mx,
            &DequantizeOptions {
                mode: o.mode.clone(),
                narrow_range: o.narrow_range,
                axis: o.axis,
                ..Default::default()
            },
        )
        .unwrap();
        let r = Session::new(&g).unwrap().run(&[], &[&q, &mn, &mx, &d], &[]).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(r[0].dtype(), t, "{what}");
        assert_eq!(r[0].shape(), shape.as_slice(), "{what}");
        assert_eq!(ints(&r[0]), i64s(&case["output"]), "{what}: quantized");
        assert_eq!(r[1].shape(), dims(&case["output_range_shape"]).as_slice(), "{what}");
        assert_eq!(bits(&r[1].to_vec::<f32>().unwrap()), bits(&f32s(&case["output_min"])), "{what}: output_min");
        assert_eq!(bits(&r[2].to_vec::<f32>().unwrap()), bits(&f32s(&case["output_max"])), "{what}: output_max");
        assert_eq!(bits(&r[3].to_vec::<f32>().unwrap()), bits(&f32s(&case["dequantized"])), "{what}: dequantized");
    }
}

#[test]
fn dequantize_matches_tensorflow_for_every_dtype_and_mode() {
    let all = cases();
    let ds = all["dequantize"].as_array().unwrap();
    assert_eq!(ds.len(), 30);
    for case in ds {
        let what = format!("{} {}", case["T"], case["attrs"]);
        let g = Graph::new();
        let t = dtype(case["T"].as_str().unwrap());
        let shape = dims(&case["shape"]);
        let vals: Vec<f64> = i64s(&case["input"]).iter().map(|&x| x as f64).collect();
        let q = c(&g, Tensor::from_f64(t, &shape, &vals).unwrap());
        let rs = dims(&case["range_shape"]);
        let lo = f32_const(&g, &rs, f32s(&case["min_range"]));
        let hi = f32_const(&g, &rs, f32s(&case["max_range"]));
        let a = &case["attrs"];
        let o = DequantizeOptions {
            mode: a["mode"].as_str().unwrap_or("MIN_COMBINED").into(),
            narrow_range: a["narrow_range"].as_bool().unwrap_or(false),
            axis: a["axis"].as_i64().unwrap_or(-1),
            dtype: a["dtype"].as_str().map_or(DType::Float, dtype),
        };
        let d = dequantize(&g.scope(), &q, &lo, &hi, &o).unwrap();
        assert_eq!(d.dtype(), o.dtype);
        let r = Session::new(&g).unwrap().fetch(&[], &d).unwrap_or_else(|e| panic!("{what}: {e}"));
        if o.dtype == DType::BFloat16 {
            let got: Vec<f32> = r.to_f64_vec().unwrap().iter().map(|&x| x as f32).collect();
            let want: Vec<f32> =
                case["output"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect();
            assert_eq!(bits(&got), bits(&want), "{what}");
        } else {
            assert_eq!(bits(&r.to_vec::<f32>().unwrap()), bits(&f32s(&case["output"])), "{what}");
        }
    }
}

#[test]
fn tensorflow_graph_with_quantized_consts_runs_to_tensorflows_values() {
    let all = cases();
    let want = &all["graph"];
    let gd = read_graph_def_any(repo_root().join("tests/data/quantize/quantize.pbtxt")).unwrap();
    let g = Graph::new();
    g.import_graph_def(&gd, &ImportGraphDefOptions::new()).unwrap();
    let t = |n: &str| g.tensor_by_name(&format!("import/{n}")).unwrap();
    assert_eq!(t("w_qint8:0").dtype(), DType::QInt8);
    assert_eq!(t("w_quint8:0").dtype(), DType::QUInt8);
    assert_eq!(t("q:0").dtype(), DType::QUInt8);
    assert_eq!(t("q:0").shape(), Shape::known(&[2, 3]));
    let x = Tensor::new(&[2, 3], f32s(&want["feed_x"])).unwrap();
    let sess = Session::new(&g).unwrap();
    let (xo, y, q, qmin, qmax, di) = (t("x:0"), t("y:0"), t("q:0"), t("q:1"), t("q:2"), t("dq_i:0"));
    let r = sess.run(&[(&xo, x)], &[&y, &q, &qmin, &qmax, &di, &t("w_qint8:0")], &[]).unwrap();
    assert_eq!(bits(&r[0].to_vec::<f32>().unwrap()), bits(&f32s(&want["y"])));
    assert_eq!(ints(&r[1]), i64s(&want["q"]));
    assert_eq!(bits(&r[2].to_vec::<f32>().unwrap()), bits(&f32s(&want["q_min"])));
    assert_eq!(bits(&r[3].to_vec::<f32>().unwrap()), bits(&f32s(&want["q_max"])));
    assert_eq!(bits(&r[4].to_vec::<f32>().unwrap()), bits(&f32s(&want["dq_i"])));
    assert_eq!(ints(&r[5]), [-128, 0, 127]);
    // the graph writes back as it was read: the quantized Consts keep dtype and values
    let back = g.to_graph_def();
    let g2 = Graph::new();
    g2.import_graph_def(&back, &ImportGraphDefOptions::new().prefix("again")).unwrap();
    let w = g2.tensor_by_name("again/import/w_qint8:0").unwrap();
    assert_eq!(ints(&Session::new(&g2).unwrap().fetch(&[], &w).unwrap()), [-128, 0, 127]);
}

#[test]
fn errors_are_tensorflows() {
    let g = Graph::new();
    let s = g.scope();
    let x = f32_const(&g, &[4], vec![-1.0, 0.0, 0.5, 2.0]);
    let one = f32_const(&g, &[], vec![1.0]);
    let zero = f32_const(&g, &[], vec![0.0]);
    let run_err = |o: &Output| Session::new(&g).unwrap().fetch(&[], o).unwrap_err();
    // max below min
    let (q, _, _) = quantize_v2(&s, &x, &one, &zero, DType::QInt8, &QuantizeOptions::default()).unwrap();
    let e = run_err(&q);
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("input_max_range must be larger than input_min_range."), "{e}");
    // HALF_TO_EVEN outside SCALED
    let o = QuantizeOptions { round_mode: "HALF_TO_EVEN".into(), ..Default::default() };
    let (q, _, _) = quantize_v2(&s, &x, &zero, &one, DType::QInt8, &o).unwrap();
    let e = run_err(&q);
    assert!(
        e.message.contains("Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', but mode is 'MIN_COMBINED'."),
        "{e}"
    );
    // shapes: rank-1 ranges without an axis, an axis below -1, a size mismatch along the axis
    let v1 = f32_const(&g, &[1], vec![0.0]);
    let e = quantize_v2(&s, &x, &v1, &v1, DType::QInt8, &QuantizeOptions::default()).unwrap_err();
    assert!(e.message.contains("Shape must be rank 0 but is rank 1"), "{e}");
    let o = QuantizeOptions { axis: -2, ..Default::default() };
    let e = quantize_v2(&s, &x, &zero, &one, DType::QInt8, &o).unwrap_err();
    assert!(e.message.contains("axis should be at least -1, got -2"), "{e}");
    let v2 = f32_const(&g, &[2], vec![0.0, 1.0]);
    let o = QuantizeOptions { axis: 0, ..Default::default() };
    let e = quantize_v2(&s, &x, &v2, &v2, DType::QInt8, &o).unwrap_err();
    assert!(e.message.contains("Dimensions must be equal, but are 2 and 4"), "{e}");
    // not a quantized type
    let e = quantize_v2(&s, &x, &zero, &one, DType::Int8, &QuantizeOptions::default()).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    // MIN_FIRST per axis is TensorFlow's Unimplemented
    let x22 = f32_const(&g, &[2, 2], vec![-1.0, 0.0, 0.5, 2.0]);
    let lo2 = f32_const(&g, &[2], vec![0.0, 0.0]);
    let hi2 = f32_const(&g, &[2], vec![1.0, 1.0]);
    let o = QuantizeOptions { mode: "MIN_FIRST".into(), axis: 1, ..Default::default() };
    let (q, _, _) = quantize_v2(&s, &x22, &lo2, &hi2, DType::QInt8, &o).unwrap();
    let e = run_err(&q);
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("MIN_FIRST mode is not implemented for Quantize with axis != -1."), "{e}");
    let (q8, _, _) =
        quantize_v2(&s, &x22, &lo2, &hi2, DType::QInt8, &QuantizeOptions { axis: 1, ..Default::default() }).unwrap();
    let dopt = DequantizeOptions { mode: "MIN_FIRST".into(), axis: 1, ..Default::default() };
    let e = run_err(&dequantize(&s, &q8, &lo2, &hi2, &dopt).unwrap());
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("MIN_FIRST mode is not implemented for Dequantize with axis != -1."), "{e}");
    // a mode TensorFlow does not know
    let dopt = DequantizeOptions { mode: "FOO".into(), ..Default::default() };
    let e = dequantize(&s, &q8, &zero, &one, &dopt).unwrap_err();
    assert!(
        e.message.contains(
            "Value for attr 'mode' of \"FOO\" is not in the list of allowed values: \"MIN_COMBINED\", \"MIN_FIRST\", \"SCALED\""
        ),
        "{e}"
    );
    // fed ranges of the wrong size: TensorFlow's run-time messages
    let p = ops::placeholder(&s, DType::Float, Shape::unknown()).unwrap();
    let (q, _, _) = quantize_v2(&s, &x, &p, &one, DType::QInt8, &QuantizeOptions::default()).unwrap();
    let e = Session::new(&g).unwrap().fetch(&[(&p, Tensor::new(&[2], vec![0f32, 1.0]).unwrap())], &q).unwrap_err();
    assert!(
        e.message.contains(
            "If axis is not specified, min_range must contain a single float element, but it contains 2 elements"
        ),
        "{e}"
    );
}
