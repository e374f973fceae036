//! Forward values of the unary, comparison, Maximum/Minimum and nn kernels against
//! hand-computed numbers, default op names, and their build- and run-time errors.

mod common;
use tensorgraph::{ops, Code, DType, Graph, Output, Session, Tensor};

fn run(g: &Graph, y: &Output) -> Tensor {
    Session::new(g).unwrap().run(&[], &[y], &[]).unwrap().remove(0)
}

fn run_err(g: &Graph, y: &Output) -> tensorgraph::Error {
    Session::new(g).unwrap().run(&[], &[y], &[]).unwrap_err()
}

fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (a, b) in got.iter().zip(want) {
        assert!((a - b).abs() <= tol, "{got:?} vs {want:?}");
    }
}

fn c<T: tensorgraph::tensor::Element>(g: &Graph, shape: &[usize], v: Vec<T>) -> Output {
    ops::constant(&g.scope(), Tensor::new(shape, v).unwrap()).unwrap()
}

#[test]
fn unary_float_values() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&g, &[4], vec![0.25f32, 1.0, 4.0, 9.0]);
    let cases: Vec<(Output, Vec<f64>)> = vec![
        (ops::neg(&s, &x).unwrap(), vec![-0.25, -1.0, -4.0, -9.0]),
        (ops::square(&s, &x).unwrap(), vec![0.0625, 1.0, 16.0, 81.0]),
        (ops::sqrt(&s, &x).unwrap(), vec![0.5, 1.0, 2.0, 3.0]),
        (ops::rsqrt(&s, &x).unwrap(), vec![2.0, 1.0, 0.5, 1.0 / 3.0]),
        (ops::exp(&s, &x).unwrap(), vec![0.25f64.exp(), 1f64.exp(), 4f64.exp(), 9f64.exp()]),
        (ops::log(&s, &x).unwrap(), vec![0.25f64.ln(), 0.0, 4f64.ln(), 9f64.ln()]),
        (ops::reciprocal(&s, &x).unwrap(), vec![4.0, 1.0, 0.25, 1.0 / 9.0]),
    ];
    for (y, want) in cases {
        assert_eq!(y.dtype(), DType::Float);
        let got = run(&g, &y).to_f64_vec().unwrap();
        assert_close(&got, &want, 1e-5 * want.iter().fold(1.0f64, |a, b| a.max(b.abs())));
    }
    assert_eq!(ops::sqrt(&s, &x).unwrap().name(), "Sqrt_1:0");
}

#[test]
fn unary_integer_kernels_and_errors() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&g, &[3], vec![-3i32, 0, 5]);
    assert_eq!(run(&g, &ops::neg(&s, &x).unwrap()).to_vec::<i32>().unwrap(), vec![3, 0, -5]);
    assert_eq!(run(&g, &ops::square(&s, &x).unwrap()).to_vec::<i32>().unwrap(), vec![9, 0, 25]);
    // TensorFlow registers no integer Reciprocal kernel: refused when built, naming op and dtype
    let x64 = c(&g, &[3], vec![1i64, -1, 2]);
    let e = ops::reciprocal(&s, &x64).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    assert!(e.message.contains("Reciprocal") && e.message.contains("int64"), "{e}");
    // float-only ops reject integers when the graph is built, naming the op
    let e = ops::sqrt(&s, &x).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("Sqrt") && e.message.contains("int32"), "{e}");
    assert_eq!(ops::exp(&s, &x).unwrap_err().code, Code::InvalidArgument);
    assert_eq!(ops::softmax(&s, &x).unwrap_err().code, Code::InvalidArgument);
}

#[test]
fn relu_sigmoid_tanh_values() {
    let g = Graph::new();
    let s = g.scope();
    let xi = c(&g, &[2, 2], vec![-2i32, 0, 3, -1]);
    let r = ops::relu(&s, &xi).unwrap();
    assert_eq!(r.name(), "Relu:0");
    assert_eq!(r.dtype(), DType::Int32);
    assert_eq!(run(&g, &r).to_vec::<i32>().unwrap(), vec![0, 0, 3, 0]);
    let x = c(&g, &[3], vec![-1.0f64, 0.0, 2.0]);
    assert_eq!(run(&g, &ops::relu(&s, &x).unwrap()).to_vec::<f64>().unwrap(), vec![0.0, 0.0, 2.0]);
    let sig = ops::sigmoid(&s, &x).unwrap();
    assert_eq!(sig.name(), "Sigmoid:0");
    assert_close(&run(&g, &sig).to_f64_vec().unwrap(), &[0.2689414213699951, 0.5, 0.8807970779778823], 1e-12);
    let t = ops::tanh(&s, &x).unwrap();
    assert_eq!(t.name(), "Tanh:0");
    assert_close(&run(&g, &t).to_f64_vec().unwrap(), &[-0.7615941559557649, 0.0, 0.9640275800758169], 1e-12);
}

#[test]
fn maximum_minimum_broadcast_and_nan() {
    let g = Graph::new();
    let s = g.scope();
    let a = c(&g, &[2, 3], vec![1.0f32, 5.0, -2.0, 0.0, 7.0, 3.0]);
    let b = c(&g, &[3], vec![2.0f32, 2.0, 2.0]);
    let mx = ops::maximum(&s, &a, &b).unwrap();
    assert_eq!(mx.name(), "Maximum:0");
    assert_eq!(mx.shape(), tensorgraph::Shape::known(&[2, 3]));
    assert_eq!(run(&g, &mx).to_vec::<f32>().unwrap(), vec![2.0, 5.0, 2.0, 2.0, 7.0, 3.0]);
    let mn = ops::minimum(&s, &a, &b).unwrap();
    assert_eq!(mn.name(), "Minimum:0");
    assert_eq!(run(&g, &mn).to_vec::<f32>().unwrap(), vec![1.0, 2.0, -2.0, 0.0, 2.0, 2.0]);
    let ai = c(&g, &[2, 1], vec![1i64, 4]);
    let bi = c(&g, &[3], vec![0i64, 2, 5]);
    assert_eq!(run(&g, &ops::maximum(&s, &ai, &bi).unwrap()).to_vec::<i64>().unwrap(), vec![1, 2, 5, 4, 4, 5]);
    let n = c(&g, &[2], vec![f64::NAN, 1.0]);
    let m = c(&g, &[2], vec![0.0f64, f64::NAN]);
    for y in [ops::maximum(&s, &n, &m).unwrap(), ops::minimum(&s, &n, &m).unwrap()] {
        assert!(run(&g, &y).to_vec::<f64>().unwrap().iter().all(|v| v.is_nan()));
    }
    let e = ops::maximum(&s, &a, &c(&g, &[4], vec![0.0f32; 4])).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("[2, 3]") && e.message.contains("[4]"), "{e}");
}

#[test]
fn comparisons_are_bool() {
    let g = Graph::new();
    let s = g.scope();
    let a = c(&g, &[4], vec![1i32, 2, 3, 4]);
    let b = c(&g, &[], vec![2i32]);
    let cases = [
        (ops::greater(&s, &a, &b).unwrap(), "Greater:0", vec![false, false, true, true]),
        (ops::greater_equal(&s, &a, &b).unwrap(), "GreaterEqual:0", vec![false, true, true, true]),
        (ops::less(&s, &a, &b).unwrap(), "Less:0", vec![true, false, false, false]),
        (ops::less_equal(&s, &a, &b).unwrap(), "LessEqual:0", vec![true, true, false, false]),
    ];
    for (y, name, want) in cases {
        assert_eq!(y.name(), name);
        assert_eq!(y.dtype(), DType::Bool);
        assert_eq!(run(&g, &y).to_vec::<bool>().unwrap(), want);
    }
    let f = c(&g, &[2, 1], vec![0.5f64, 2.5]);
    let h = c(&g, &[3], vec![0.0f64, 1.0, 3.0]);
    let y = ops::less(&s, &f, &h).unwrap();
    assert_eq!(run(&g, &y).to_vec::<bool>().unwrap(), vec![false, true, true, false, false, true]);
    assert_eq!(ops::greater(&s, &a, &f).unwrap_err().code, Code::InvalidArgument);
}

#[test]
fn softmax_and_log_softmax_of_1_2_3() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&g, &[3], vec![1.0f64, 2.0, 3.0]);
    let want = [0.09003057317038046, 0.24472847105479764, 0.6652409557748219];
    let sm = ops::softmax(&s, &x).unwrap();
    assert_eq!(sm.name(), "Softmax:0");
    assert_close(&run(&g, &sm).to_f64_vec().unwrap(), &want, 1e-12);
    let ls = ops::log_softmax(&s, &x).unwrap();
    assert_eq!(ls.name(), "LogSoftmax:0");
    let wl: Vec<f64> = want.iter().map(|v| v.ln()).collect();
    assert_close(&run(&g, &ls).to_f64_vec().unwrap(), &wl, 1e-12);
    // rows of a matrix, float32, large logits (stable)
    let x = c(&g, &[2, 3], vec![1.0f32, 2.0, 3.0, 1001.0, 1002.0, 1003.0]);
    let got = run(&g, &ops::softmax(&s, &x).unwrap()).to_f64_vec().unwrap();
    assert_close(&got, &[want, want].concat(), 1e-6);
    let got = run(&g, &ops::log_softmax(&s, &x).unwrap()).to_f64_vec().unwrap();
    assert_close(&got, &[wl.clone(), wl].concat(), 1e-5);
    assert_eq!(ops::softmax(&s, &c(&g, &[], vec![1.0f32])).unwrap_err().code, Code::InvalidArgument);
}

#[test]
fn softmax_cross_entropy_known_case() {
    let g = Graph::new();
    let s = g.scope();
    let logits = c(&g, &[2, 3], vec![1.0f64, 2.0, 3.0, 0.0, 0.0, 0.0]);
    let labels = c(&g, &[2, 3], vec![0.0f64, 0.0, 1.0, 0.5, 0.25, 0.25]);
    let loss = ops::softmax_cross_entropy_with_logits(&s, &labels, &logits).unwrap();
    assert_eq!(loss.name(), "softmax_cross_entropy_with_logits:0");
    assert_eq!(loss.op().op_type(), "SoftmaxCrossEntropyWithLogits");
    assert_eq!(loss.shape(), tensorgraph::Shape::known(&[2]));
    // -log(softmax([1,2,3])[2]) and, for uniform logits, log(3)
    assert_close(&run(&g, &loss).to_f64_vec().unwrap(), &[0.4076059644443806, 3f64.ln()], 1e-12);
    let bp = run(&g, &loss.op().output(1).unwrap()).to_f64_vec().unwrap();
    let t = 1.0 / 3.0;
    assert_close(
        &bp,
        &[0.09003057317038046, 0.24472847105479764, 0.6652409557748219 - 1.0, t - 0.5, t - 0.25, t - 0.25],
        1e-12,
    );
    let again = ops::softmax_cross_entropy_with_logits(&s, &labels, &logits).unwrap();
    assert_eq!(again.name(), "softmax_cross_entropy_with_logits_1:0");
    // float32 labels are cast to the logits' dtype
    let l32 = c(&g, &[2, 3], vec![0.0f32, 0.0, 1.0, 0.5, 0.25, 0.25]);
    let y = ops::softmax_cross_entropy_with_logits(&s, &l32, &logits).unwrap();
    assert_close(&run(&g, &y).to_f64_vec().unwrap(), &[0.4076059644443806, 3f64.ln()], 1e-7);
    let e = ops::softmax_cross_entropy_with_logits(&s, &c(&g, &[2, 4], vec![0.0f64; 8]), &logits).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("[2, 3]") && e.message.contains("[2, 4]"), "{e}");
}

#[test]
fn sparse_softmax_cross_entropy_values_and_bad_label() {
    let g = Graph::new();
    let s = g.scope();
    let logits = c(&g, &[2, 3], vec![1.0f32, 2.0, 3.0, 0.0, 0.0, 0.0]);
    let labels = c(&g, &[2], vec![2i64, 0]);
    let loss = ops::sparse_softmax_cross_entropy_with_logits(&s, &labels, &logits).unwrap();
    assert_eq!(loss.name(), "SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits:0");
    assert_close(&run(&g, &loss).to_f64_vec().unwrap(), &[0.4076059644443806, 3f64.ln()], 1e-6);
    let bp = run(&g, &loss.op().output(1).unwrap()).to_f64_vec().unwrap();
    let t = 1.0 / 3.0;
    assert_close(&bp, &[0.09003057317038046, 0.24472847105479764, 0.6652409557748219 - 1.0, t - 1.0, t, t], 1e-6);
    let bad = c(&g, &[2], vec![1i32, 3]);
    let y = ops::sparse_softmax_cross_entropy_with_logits(&s, &bad, &logits).unwrap();
    assert_eq!(y.name(), "SparseSoftmaxCrossEntropyWithLogits_1/SparseSoftmaxCrossEntropyWithLogits:0");
    let e = run_err(&g, &y);
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("label value of 3") && e.message.contains("[0, 3)"), "{e}");
    let neg = c(&g, &[2], vec![-1i32, 0]);
    let e = run_err(&g, &ops::sparse_softmax_cross_entropy_with_logits(&s, &neg, &logits).unwrap());
    assert!(e.message.contains("label value of -1"), "{e}");
    // wrong batch size and float labels are build-time errors
    let e = ops::sparse_softmax_cross_entropy_with_logits(&s, &c(&g, &[3], vec![0i32; 3]), &logits).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("[2, 3]") && e.message.contains("[3]"), "{e}");
    let e = ops::sparse_softmax_cross_entropy_with_logits(&s, &c(&g, &[2], vec![0.0f32; 2]), &logits).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
}

#[test]
fn bias_add_values_and_errors() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&g, &[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let b = c(&g, &[3], vec![10.0f32, 20.0, 30.0]);
    let y = ops::bias_add(&s, &x, &b).unwrap();
    assert_eq!(y.name(), "BiasAdd:0");
    assert_eq!(run(&g, &y).to_vec::<f32>().unwrap(), vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
    // NCHW: bias along dimension 1
    let x4 = c(&g, &[1, 2, 1, 2], vec![1i32, 2, 3, 4]);
    let b2 = c(&g, &[2], vec![100i32, 200]);
    let y = ops::bias_add_with_format(&s, &x4, &b2, "NCHW").unwrap();
    assert_eq!(run(&g, &y).to_vec::<i32>().unwrap(), vec![101, 102, 203, 204]);
    // BiasAddGrad sums all but the channel dimension
    let gb = s.op("BiasAddGrad", "BiasAddGrad").input(&x).attr("T", DType::Float).build_output().unwrap();
    assert_eq!(run(&g, &gb).to_vec::<f32>().unwrap(), vec![5.0, 7.0, 9.0]);
    let gb = s
        .op("BiasAddGrad", "BiasAddGrad")
        .input(&x4)
        .attr("T", DType::Int32)
        .attr("data_format", "NCHW")
        .build_output()
        .unwrap();
    assert_eq!(run(&g, &gb).to_vec::<i32>().unwrap(), vec![3, 7]);
    // wrong bias size: build-time error naming both shapes
    let e = ops::bias_add(&s, &x, &c(&g, &[4], vec![0.0f32; 4])).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("[2, 3]") && e.message.contains("[4]") && e.message.contains("BiasAdd"), "{e}");
    let e = ops::bias_add(&s, &b, &b).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    let e = ops::bias_add_with_format(&s, &x, &b, "NCWH").unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
}

#[test]
fn binary_kernels_by_dtype_and_integer_division() {
    let g = Graph::new();
    let s = g.scope();
    // integers wrap; MIN // -1 wraps instead of panicking
    let x = c(&g, &[3], vec![i32::MAX, -7, i32::MIN]);
    let y = c(&g, &[3], vec![1i32, 2, -1]);
    assert_eq!(run(&g, &ops::add(&s, &x, &y).unwrap()).to_vec::<i32>().unwrap(), vec![i32::MIN, -5, i32::MAX]);
    assert_eq!(run(&g, &ops::floor_div(&s, &x, &y).unwrap()).to_vec::<i32>().unwrap(), vec![i32::MAX, -4, i32::MIN]);
    // truediv of int32 is float64, as tf.truediv: no overflow, no truncation
    let q = run(&g, &ops::div(&s, &x, &y).unwrap());
    assert_eq!(q.to_vec::<f64>().unwrap(), vec![2147483647.0, -3.5, 2147483648.0]);
    // an integer divisor holding 0 is refused, naming the op and both shapes
    let z = c(&g, &[], vec![0i32]);
    let e = run_err(&g, &ops::floor_div(&s, &x, &z).unwrap());
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("Integer division by zero in FloorDiv of [3] by []"), "{e}");
    // ... as TensorFlow (tf.math.floormod and floordiv, 2.21): only an element computed can
    // divide by zero, so an empty x by a 0 gives the empty result (Prod's gradient at
    // unknown rank takes a scalar's (axes + 0) % 0), a broadcast one still fails
    let empty = c(&g, &[0], Vec::<i32>::new());
    for (name, op) in [("FloorMod", ops::floor_mod(&s, &empty, &z)), ("FloorDiv", ops::floor_div(&s, &empty, &z))] {
        let r = run(&g, &op.unwrap());
        assert_eq!((r.shape(), r.to_vec::<i32>().unwrap()), (&[0usize][..], vec![]), "{name}");
    }
    let e2 = c(&g, &[2, 0], Vec::<i64>::new());
    let z2 = c(&g, &[2, 1], vec![0i64, 3]);
    assert_eq!(run(&g, &ops::floor_mod(&s, &e2, &z2).unwrap()).shape(), &[2usize, 0][..]);
    let e = run_err(&g, &ops::floor_mod(&s, &c(&g, &[1], vec![5i64]), &z2).unwrap());
    assert!(e.message.contains("Integer division by zero in FloorMod of [1] by [2, 1]"), "{e}");
    // ... while truediv divides floats: inf and -inf
    let q = run(&g, &ops::div(&s, &x, &z).unwrap()).to_vec::<f64>().unwrap();
    assert_eq!(q, vec![f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY]);
    // bool Equal; AddV2 on a dtype without a kernel here (uint32) builds and is refused when
    // run; uint8 has one, as TensorFlow's CPU kernels
    let b = c(&g, &[2], vec![true, false]);
    let eq = ops::equal(&s, &b, &c(&g, &[], vec![true])).unwrap();
    assert_eq!(run(&g, &eq).to_vec::<bool>().unwrap(), vec![true, false]);
    let u32s = ops::constant(&s, Tensor::from_f64(DType::UInt32, &[2], &[1.0, 2.0]).unwrap()).unwrap();
    let sum = ops::add(&s.named("u32_add"), &u32s, &u32s).unwrap();
    let e = run_err(&g, &sum);
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("u32_add") && e.message.contains("AddV2 has no kernel for dtype uint32"), "{e}");
    let u = c(&g, &[2], vec![1u8, 200]);
    assert_eq!(run(&g, &ops::add(&s, &u, &u).unwrap()).to_vec::<u8>().unwrap(), vec![2, 144]);
    // comparisons take uint8 (as TensorFlow's CPU kernels) and refuse bool when the graph is built
    assert_eq!(
        run(&g, &ops::greater(&s, &u, &c(&g, &[], vec![1u8])).unwrap()).to_vec::<bool>().unwrap(),
        vec![false, true]
    );
    assert_eq!(ops::greater(&s, &b, &b).unwrap_err().code, Code::InvalidArgument);
}

/// `tf.truediv` casts integers to floats before `RealDiv` (TensorFlow 2.21: `truediv` of
/// int8/int16/uint8/uint16 is float32, of int32/int64/uint32/uint64 float64, with ops
/// `truediv/Cast`, `truediv/Cast_1`, `truediv`), and TensorFlow has no integer `RealDiv`.
#[test]
fn truediv_casts_integers_as_tensorflow() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&g, &[2], vec![7i32, -7]);
    let y = c(&g, &[2], vec![2i32, 2]);
    let q = ops::div(&s, &x, &y).unwrap();
    assert_eq!(q.name(), "truediv:0");
    assert_eq!(q.dtype(), DType::Double);
    assert_eq!(run(&g, &q).to_vec::<f64>().unwrap(), vec![3.5, -3.5]);
    let node = q.op().node();
    assert_eq!(node.op_type, "RealDiv");
    let casts = ["truediv/Cast", "truediv/Cast_1"].map(|n| g.operation_by_name(n).unwrap());
    assert_eq!(node.inputs, vec![(casts[0].id(), 0), (casts[1].id(), 0)]);
    for cast in &casts {
        assert_eq!(cast.op_type(), "Cast");
        assert_eq!(cast.output(0).unwrap().dtype(), DType::Double);
    }
    // the small integers go to float32; the wide ones to float64
    let want = [
        (DType::Int8, DType::Float),
        (DType::Int16, DType::Float),
        (DType::UInt8, DType::Float),
        (DType::UInt16, DType::Float),
        (DType::Int32, DType::Double),
        (DType::Int64, DType::Double),
        (DType::UInt32, DType::Double),
        (DType::UInt64, DType::Double),
        (DType::Float, DType::Float),
        (DType::Double, DType::Double),
    ];
    for (t, out) in want {
        let a = ops::constant(&s, Tensor::from_f64(t, &[2], &[7.0, 1.0]).unwrap()).unwrap();
        let b = ops::constant(&s, Tensor::from_f64(t, &[2], &[2.0, 2.0]).unwrap()).unwrap();
        let q = ops::div(&s, &a, &b).unwrap();
        assert_eq!(q.dtype(), out, "{t}");
        assert_eq!(run(&g, &q).to_f64_vec().unwrap(), vec![3.5, 0.5], "{t}");
    }
    // dtypes must match (TensorFlow's words), and bool is not a RealDiv type
    let f = c(&g, &[2], vec![1.0f32, 2.0]);
    let e = ops::div(&s, &x, &f).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.starts_with("`x` and `y` must have the same dtype, got int32 != float32"), "{e}");
    let b = c(&g, &[1], vec![true]);
    let e = ops::div(&s, &b, &b).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(
        e.message.starts_with("Value for attr 'T' of bool is not in the list of allowed values: bfloat16, half"),
        "{e}"
    );
    // an integer RealDiv (as an imported graph may hold) builds, as in TensorFlow, but
    // has no kernel here either
    let raw = s.op("RealDiv", "raw").input(&x).input(&y).attr("T", DType::Int32).build_output().unwrap();
    let e = run_err(&g, &raw);
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("RealDiv has no kernel for dtype int32"), "{e}");
}
