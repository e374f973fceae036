//! TensorArray ops (TensorArrayV3 and friends) and stacks (StackV2 and friends): values
//! and TensorFlow's error messages, gradients built here, and a `dynamic_rnn` LSTM graph
//! written by TensorFlow 2.21 (scripts/gen_tensor_array.py, tests/data/tensor_array) that
//! runs forward and through TensorFlow's own gradient while loop (stacks, gradient arrays).
//!
//! Expected values and messages come from TensorFlow 2.21 in graph mode, for example
//! (`g` is `gen_data_flow_ops`):
//! ```python
//! h, f = g.tensor_array_v3(size=2, dtype=tf.float32)
//! f = g.tensor_array_write_v3(h, 2, [1., 2.], f)   # Tried to write to index 2 ...
//! ```
//! TensorFlow numbers unnamed arrays with a process-wide counter (`TensorArrayV3_7`);
//! tensorgraph counts per run, so the first array of a run is `TensorArrayV3_0`.

mod common;
use common::{check_gradients, f32_tensor, flat_f64};
use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::ops::{self, TensorArrayOptions};
use tensorgraph::train::gradients;
use tensorgraph::{Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

/// tests/data/tensor_array, or `$TENSORGRAPH_TENSOR_ARRAY_DATA` (a directory the script
/// wrote, for example a longer sequence: the LSTM tests then check that graph).
fn data_dir() -> std::path::PathBuf {
    match std::env::var_os("TENSORGRAPH_TENSOR_ARRAY_DATA") {
        Some(d) => d.into(),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tensor_array"),
    }
}

fn lstm() -> (Graph, serde_json::Value) {
    let text = std::fs::read_to_string(data_dir().join("lstm.pbtxt")).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &graph_def_from_text(&text).unwrap(), &ImportGraphDefOptions::new().prefix("")).unwrap();
    let json = serde_json::from_str(&std::fs::read_to_string(data_dir().join("lstm.json")).unwrap()).unwrap();
    (g, json)
}

/// Runs the LSTM graph on TensorFlow's input, fetching `names`; compares to TensorFlow
/// within `rtol` (absolute 1e-6).
fn check_lstm(names: &[&str], rtol: f64) {
    let (g, json) = lstm();
    let x = g.tensor_by_name("x:0").unwrap();
    let feed = f32_tensor(&json["feeds"]["x:0"]);
    let fetches: Vec<Output> = names.iter().map(|n| g.tensor_by_name(n).unwrap()).collect();
    let refs: Vec<&Output> = fetches.iter().collect();
    let out = Session::new(&g).unwrap().run(&[(&x, feed)], &refs, &[]).unwrap();
    for (name, got) in names.iter().zip(out) {
        let want = &json["fetches"][name];
        let shape: Vec<usize> =
            want["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
        assert_eq!(got.shape(), shape.as_slice(), "{name}");
        let want = flat_f64(&want["values"]);
        let got = got.to_f64_vec().unwrap();
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            assert!((a - b).abs() <= 1e-6 + rtol * b.abs(), "{name}[{i}]: got {a}, TensorFlow {b}");
        }
    }
}

#[test]
fn a_dynamic_rnn_lstm_runs_to_tensorflows_outputs() {
    check_lstm(&["outputs:0", "state_c:0", "state_h:0", "loss:0"], 1e-5);
}

#[test]
fn tensorflows_gradient_while_loop_gives_its_gradients() {
    check_lstm(&["grad_kernel:0", "grad_x:0"], 1e-4);
}

fn c(s: &Scope, t: Tensor) -> Output {
    ops::constant(s, t).unwrap()
}
fn i32s(s: &Scope, v: i32) -> Output {
    c(s, Tensor::scalar(v))
}
fn f32v(s: &Scope, shape: &[usize], v: &[f32]) -> Output {
    c(s, Tensor::new(shape, v.to_vec()).unwrap())
}
/// A float32 TensorArray of `size` elements.
fn new_ta(s: &Scope, size: i32, opts: TensorArrayOptions) -> (Output, Output) {
    ops::tensor_array_v3(s, &i32s(s, size), DType::Float, &opts).unwrap()
}
fn opts() -> TensorArrayOptions {
    TensorArrayOptions::default()
}
fn fetch(g: &Graph, outs: &[&Output]) -> Vec<Tensor> {
    Session::new(g).unwrap().run(&[], outs, &[]).unwrap()
}
fn f32s(t: &Tensor) -> (Vec<usize>, Vec<f32>) {
    (t.shape().to_vec(), t.to_vec::<f32>().unwrap())
}
/// Fetching `out` fails with InvalidArgument: `op_type 'node': tf_message`.
fn expect_error(g: &Graph, out: &Output, tf_message: &str) {
    let e = Session::new(g).unwrap().run(&[], &[out], &[]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{}", e.message);
    let op = out.op();
    assert_eq!(e.message, format!("{} '{}': {tf_message}", op.op_type(), op.name()));
}

#[test]
fn write_read_and_size() {
    let g = Graph::new();
    let s = g.scope();
    let (h, f) = new_ta(&s, 3, opts());
    let f = ops::tensor_array_write_v3(&s, &h, &i32s(&s, 0), &f32v(&s, &[2], &[1., 2.]), &f).unwrap();
    let f = ops::tensor_array_write_v3(&s, &h, &i32s(&s, 2), &f32v(&s, &[2], &[5., 6.]), &f).unwrap();
    let r = ops::tensor_array_read_v3(&s, &h, &i32s(&s, 2), &f, DType::Float).unwrap();
    let n = ops::tensor_array_size_v3(&s, &h, &f).unwrap();
    let out = fetch(&g, &[&r, &n, &f]);
    assert_eq!(f32s(&out[0]), (vec![2], vec![5., 6.]));
    assert_eq!(out[1].to_vec::<i32>().unwrap(), [3]);
    assert_eq!((out[1].shape(), out[2].to_vec::<f32>().unwrap()), (&[][..], vec![0.]), "flow is 0.0");
    // the shape functions: a handle is a resource 2-vector, the flow a float scalar
    assert_eq!((h.dtype(), h.shape()), (DType::Resource, Shape::known(&[2])));
    assert_eq!((f.dtype(), f.shape()), (DType::Float, Shape::scalar()));
    assert_eq!(r.shape(), Shape::unknown());
}

#[test]
fn scatter_gather_concat_and_split_give_tensorflows_values() {
    let g = Graph::new();
    let s = g.scope();
    let keep = TensorArrayOptions { clear_after_read: false, ..opts() };
    let (h, f) = new_ta(&s, 3, keep.clone());
    let idx = c(&s, Tensor::vector(vec![2i32, 0]));
    let f = ops::tensor_array_scatter_v3(&s, &h, &idx, &f32v(&s, &[2, 2], &[1., 2., 3., 4.]), &f).unwrap();
    let gi = c(&s, Tensor::vector(vec![0i32, 2, 0]));
    let gathered = ops::tensor_array_gather_v3(&s, &h, &gi, &f, DType::Float, &Shape::unknown()).unwrap();
    let size = ops::tensor_array_size_v3(&s, &h, &f).unwrap();
    // split [[1,2],[3,4],[5,6]] by lengths [1, 2], concatenated again
    let (h2, f2) = new_ta(&s, 2, opts());
    let lengths = c(&s, Tensor::vector(vec![1i64, 2]));
    let value = f32v(&s, &[3, 2], &[1., 2., 3., 4., 5., 6.]);
    let f2 = ops::tensor_array_split_v3(&s, &h2, &value, &lengths, &f2).unwrap();
    let (cat, lens) = ops::tensor_array_concat_v3(&s, &h2, &f2, DType::Float, &Shape::unknown()).unwrap();
    // elements of one shape past dimension 0 concatenate: [[1,2]] and [[1,2],[3,4]]
    let (h3, f3) = new_ta(&s, 2, opts());
    let f3 = ops::tensor_array_write_v3(&s, &h3, &i32s(&s, 0), &f32v(&s, &[1, 2], &[1., 2.]), &f3).unwrap();
    let f3 = ops::tensor_array_write_v3(&s, &h3, &i32s(&s, 1), &f32v(&s, &[2, 2], &[1., 2., 3., 4.]), &f3).unwrap();
    let (cat3, lens3) = ops::tensor_array_concat_v3(&s, &h3, &f3, DType::Float, &Shape::unknown()).unwrap();
    // a dynamically sized array grows on a write past its end
    let (h4, f4) = new_ta(&s, 2, TensorArrayOptions { dynamic_size: true, ..opts() });
    let f4 = ops::tensor_array_write_v3(&s, &h4, &i32s(&s, 4), &f32v(&s, &[1], &[1.]), &f4).unwrap();
    let size4 = ops::tensor_array_size_v3(&s, &h4, &f4).unwrap();
    // an unwritten element of a known element shape reads as zeros; empty gathers/concats
    let (h5, f5) = new_ta(&s, 2, TensorArrayOptions { element_shape: Shape::known(&[2]), ..opts() });
    let zeros = ops::tensor_array_read_v3(&s, &h5, &i32s(&s, 1), &f5, DType::Float).unwrap();
    let (h6, f6) = new_ta(&s, 0, TensorArrayOptions { element_shape: Shape::known(&[2]), ..opts() });
    let none = c(&s, Tensor::new(&[0], Vec::<i32>::new()).unwrap());
    let empty = ops::tensor_array_gather_v3(&s, &h6, &none, &f6, DType::Float, &Shape::known(&[2])).unwrap();
    let (empty_cat, empty_lens) = ops::tensor_array_concat_v3(&s, &h6, &f6, DType::Float, &Shape::known(&[2])).unwrap();
    assert_eq!(gathered.shape(), Shape::unknown(), "no element shape given");
    assert_eq!(empty.shape(), Shape::partial(&[Some(0), Some(2)]));
    let out =
        fetch(&g, &[&gathered, &size, &cat, &lens, &cat3, &lens3, &size4, &zeros, &empty, &empty_cat, &empty_lens]);
    assert_eq!(f32s(&out[0]), (vec![3, 2], vec![3., 4., 1., 2., 3., 4.]));
    assert_eq!(out[1].to_vec::<i32>().unwrap(), [3]);
    assert_eq!(f32s(&out[2]), (vec![3, 2], vec![1., 2., 3., 4., 5., 6.]));
    assert_eq!(out[3].to_vec::<i64>().unwrap(), [1, 2]);
    assert_eq!(f32s(&out[4]), (vec![3, 2], vec![1., 2., 1., 2., 3., 4.]));
    assert_eq!(out[5].to_vec::<i64>().unwrap(), [1, 2]);
    assert_eq!(out[6].to_vec::<i32>().unwrap(), [5]);
    assert_eq!(f32s(&out[7]), (vec![2], vec![0., 0.]));
    assert_eq!(f32s(&out[8]), (vec![0, 2], vec![]));
    assert_eq!(f32s(&out[9]), (vec![0, 2], vec![]));
    assert_eq!((out[10].shape(), out[10].dtype()), (&[0][..], DType::Int64));
}

#[test]
fn gradient_arrays_aggregate_and_read_zeros() {
    let g = Graph::new();
    let s = g.scope();
    // two writes to index 0 of a gradient array add up: [1,2] + [3,4]
    let (h, f) = new_ta(&s, 2, opts());
    let (gh, gf) = ops::tensor_array_grad_v3(&s, &h, &f, "gradients").unwrap();
    let gf = ops::tensor_array_write_v3(&s, &gh, &i32s(&s, 0), &f32v(&s, &[2], &[1., 2.]), &gf).unwrap();
    let gf = ops::tensor_array_write_v3(&s, &gh, &i32s(&s, 0), &f32v(&s, &[2], &[3., 4.]), &gf).unwrap();
    // asking again for the same source gives the same array
    let (gh2, gf2) = ops::tensor_array_grad_v3(&s, &h, &gf, "gradients").unwrap();
    let sum = ops::tensor_array_read_v3(&s, &gh2, &i32s(&s, 0), &gf2, DType::Float).unwrap();
    let size = ops::tensor_array_size_v3(&s, &gh2, &gf2).unwrap();
    // a gradient no write reached reads as zeros of the forward element's shape
    let known = TensorArrayOptions { element_shape: Shape::known(&[2]), ..opts() };
    let (h2, f2) = new_ta(&s, 2, known.clone());
    let f2 = ops::tensor_array_write_v3(&s, &h2, &i32s(&s, 0), &f32v(&s, &[2], &[1., 2.]), &f2).unwrap();
    let (gh3, gf3) = ops::tensor_array_grad_v3(&s, &h2, &f2, "gradients").unwrap();
    let gi = c(&s, Tensor::vector(vec![0i32, 1]));
    let zeros = ops::tensor_array_gather_v3(&s, &gh3, &gi, &gf3, DType::Float, &Shape::unknown()).unwrap();
    // TensorArrayGradWithShape: shape_to_prepend [3] in front of the element shape [2]
    let (h4, f4) = new_ta(&s, 2, known);
    let prepend = c(&s, Tensor::vector(vec![3i32]));
    let (gh4, gf4) = ops::tensor_array_grad_with_shape(&s, &h4, &f4, &prepend, "g").unwrap();
    let zeros32 = ops::tensor_array_read_v3(&s, &gh4, &i32s(&s, 1), &gf4, DType::Float).unwrap();
    let out = fetch(&g, &[&sum, &size, &zeros, &zeros32]);
    assert_eq!(f32s(&out[0]), (vec![2], vec![4., 6.]));
    assert_eq!(out[1].to_vec::<i32>().unwrap(), [2]);
    assert_eq!(f32s(&out[2]), (vec![2, 2], vec![0.; 4]));
    assert_eq!(f32s(&out[3]), (vec![3, 2], vec![0.; 6]));
}

/// (the op to fetch, TensorFlow 2.21's message) for each misuse, each in a fresh graph.
#[test]
fn misuse_fails_with_tensorflows_messages() {
    type Build = fn(&Scope) -> Output;
    let cases: Vec<(Build, &str)> = vec![
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                ops::tensor_array_write_v3(s, &h, &i32s(s, 2), &f32v(s, &[2], &[1., 2.]), &f).unwrap()
            },
            "TensorArray TensorArrayV3_0: Tried to write to index 2 but array is not resizeable and size is: 2",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                ops::tensor_array_read_v3(s, &h, &i32s(s, 5), &f, DType::Float).unwrap()
            },
            "Tried to read from index 5 but array size is: 2",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                ops::tensor_array_read_v3(s, &h, &i32s(s, -1), &f, DType::Float).unwrap()
            },
            "Tried to read from index -1 but array size is: 2",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                ops::tensor_array_read_v3(s, &h, &i32s(s, 1), &f, DType::Float).unwrap()
            },
            "TensorArray TensorArrayV3_0: Could not read from TensorArray index 1.  Furthermore, the element shape is not fully defined: <unknown>.  It is possible you are working with a resizeable TensorArray and stop_gradients is not allowing the gradients to be written.  If you set the full element_shape property on the forward TensorArray, the proper all-zeros tensor will be returned instead of incurring this error.",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                let f = ops::tensor_array_write_v3(s, &h, &i32s(s, 0), &f32v(s, &[2], &[1., 2.]), &f).unwrap();
                ops::tensor_array_write_v3(s, &h, &i32s(s, 0), &f32v(s, &[2], &[1., 2.]), &f).unwrap()
            },
            "TensorArray TensorArrayV3_0: Could not write to TensorArray index 0 because it has already been written to.",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, TensorArrayOptions { element_shape: Shape::known(&[3]), ..opts() });
                ops::tensor_array_write_v3(s, &h, &i32s(s, 0), &f32v(s, &[2], &[1., 2.]), &f).unwrap()
            },
            "TensorArray TensorArrayV3_0: Could not write to TensorArray index 0 because the value shape is [2] which is incompatible with the TensorArray's inferred element shape: [3] (consider setting infer_shape=False).",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, TensorArrayOptions { identical_element_shapes: true, ..opts() });
                let f = ops::tensor_array_write_v3(s, &h, &i32s(s, 0), &f32v(s, &[2], &[1., 2.]), &f).unwrap();
                ops::tensor_array_write_v3(s, &h, &i32s(s, 1), &f32v(s, &[3], &[1., 2., 3.]), &f).unwrap()
            },
            "TensorArray TensorArrayV3_0: Could not write to TensorArray index 1 because the value shape is [3] which is incompatible with the TensorArray's inferred element shape: [2] (consider setting infer_shape=False).",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                let f = ops::tensor_array_write_v3(s, &h, &i32s(s, 0), &f32v(s, &[2], &[1., 2.]), &f).unwrap();
                let r = ops::tensor_array_read_v3(s, &h, &i32s(s, 0), &f, DType::Float).unwrap();
                let s = s.with_control_dependencies(&[&r.op()]);
                ops::tensor_array_read_v3(&s, &h, &i32s(&s, 0), &f, DType::Float).unwrap()
            },
            "TensorArray TensorArrayV3_0: Could not read index 0 twice because it was cleared after a previous read (perhaps try setting clear_after_read = false?).",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                let f = ops::tensor_array_write_v3(s, &h, &i32s(s, 0), &f32v(s, &[2], &[1., 2.]), &f).unwrap();
                let r = ops::tensor_array_read_v3(s, &h, &i32s(s, 0), &f, DType::Float).unwrap();
                let s = s.with_control_dependencies(&[&r.op()]);
                ops::tensor_array_write_v3(&s, &h, &i32s(&s, 0), &f32v(&s, &[2], &[1., 2.]), &f).unwrap()
            },
            "TensorArray TensorArrayV3_0: Could not write to TensorArray index 0 because it has already been read.",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                let lengths = c(s, Tensor::vector(vec![1i64, 1]));
                ops::tensor_array_split_v3(s, &h, &f32v(s, &[3], &[1., 2., 3.]), &lengths, &f).unwrap()
            },
            "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is 2 and value's shape is: [3]",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 3, opts());
                let lengths = c(s, Tensor::vector(vec![1i64, 2]));
                ops::tensor_array_split_v3(s, &h, &f32v(s, &[3], &[1., 2., 3.]), &lengths, &f).unwrap()
            },
            "TensorArray's size is not equal to the size of lengths (3 vs. 2), and the TensorArray is not marked as dynamically resizeable",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                let f = ops::tensor_array_write_v3(s, &h, &i32s(s, 0), &f32v(s, &[1, 2], &[1., 2.]), &f).unwrap();
                let f = ops::tensor_array_write_v3(s, &h, &i32s(s, 1), &f32v(s, &[1, 3], &[1., 2., 3.]), &f).unwrap();
                ops::tensor_array_concat_v3(s, &h, &f, DType::Float, &Shape::unknown()).unwrap().0
            },
            "TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) shape: [2] but index 1 has (excepting dimension 0) shape: [3]",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                let f = ops::tensor_array_write_v3(s, &h, &i32s(s, 0), &f32v(s, &[], &[1.]), &f).unwrap();
                let f = ops::tensor_array_write_v3(s, &h, &i32s(s, 1), &f32v(s, &[], &[2.]), &f).unwrap();
                ops::tensor_array_concat_v3(s, &h, &f, DType::Float, &Shape::unknown()).unwrap().0
            },
            "Concat saw a scalar shape at index 0 but requires at least vectors.  Did you mean to call pack?",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                let f = ops::tensor_array_write_v3(s, &h, &i32s(s, 0), &f32v(s, &[2], &[1., 2.]), &f).unwrap();
                let f = ops::tensor_array_write_v3(s, &h, &i32s(s, 1), &f32v(s, &[3], &[1., 2., 3.]), &f).unwrap();
                let idx = c(s, Tensor::vector(vec![0i32, 1]));
                ops::tensor_array_gather_v3(s, &h, &idx, &f, DType::Float, &Shape::unknown()).unwrap()
            },
            "TensorArray has inconsistent shapes.  Index 0 has shape: [2] but index 1 has shape: [3]",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                let idx = c(s, Tensor::vector(vec![2i32, 0]));
                ops::tensor_array_scatter_v3(s, &h, &idx, &f32v(s, &[2, 2], &[1., 2., 3., 4.]), &f).unwrap()
            },
            "Max scatter index must be < array size (2 vs. 2)",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                let idx = c(s, Tensor::vector(vec![-1i32, 0]));
                ops::tensor_array_scatter_v3(s, &h, &idx, &f32v(s, &[2, 2], &[1., 2., 3., 4.]), &f).unwrap()
            },
            "TensorArray TensorArrayV3_0: Tried to write to index -1 but array is not resizeable and size is: 2",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                let close = ops::tensor_array_close_v3(s, &h).unwrap();
                let s = s.with_control_dependencies(&[&close]);
                ops::tensor_array_write_v3(&s, &h, &i32s(&s, 0), &f32v(&s, &[1], &[1.]), &f).unwrap()
            },
            "TensorArray TensorArrayV3_0 has already been closed.",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                ops::tensor_array_write_v3(s, &h, &i32s(s, 0), &c(s, Tensor::vector(vec![1i32])), &f).unwrap()
            },
            "TensorArray dtype is float but Op is trying to write dtype int32.",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                ops::tensor_array_read_v3(s, &h, &i32s(s, 0), &f, DType::Double).unwrap()
            },
            "TensorArray dtype is float but Op requested dtype double.",
        ),
        (|s| new_ta(s, -1, opts()).1, "Size should be >= 0."),
        (
            |s| {
                let named = TensorArrayOptions { tensor_array_name: "foo".into(), ..opts() };
                let (h, f) = new_ta(s, 2, named);
                ops::tensor_array_read_v3(s, &h, &i32s(s, 1), &f, DType::Float).unwrap()
            },
            "TensorArray foo_0: Could not read from TensorArray index 1.  Furthermore, the element shape is not fully defined: <unknown>.  It is possible you are working with a resizeable TensorArray and stop_gradients is not allowing the gradients to be written.  If you set the full element_shape property on the forward TensorArray, the proper all-zeros tensor will be returned instead of incurring this error.",
        ),
        (
            |s| {
                let (h, f) = new_ta(s, 2, opts());
                let (gh, gf) = ops::tensor_array_grad_v3(s, &h, &f, "gradients").unwrap();
                ops::tensor_array_read_v3(s, &gh, &i32s(s, 1), &gf, DType::Float).unwrap()
            },
            "TensorArray TensorArrayV3_0@gradients: Could not read from TensorArray index 1.  Furthermore, the element shape is not fully defined: <unknown>.  It is possible you are working with a resizeable TensorArray and stop_gradients is not allowing the gradients to be written.  If you set the full element_shape property on the forward TensorArray, the proper all-zeros tensor will be returned instead of incurring this error.",
        ),
    ];
    for (build, message) in cases {
        let g = Graph::new();
        let out = build(&g.scope());
        expect_error(&g, &out, message);
    }
}

#[test]
fn size_survives_close_and_scatter_lengths_are_checked_at_build() {
    let g = Graph::new();
    let s = g.scope();
    let (h, f) = new_ta(&s, 2, opts());
    let close = ops::tensor_array_close_v3(&s, &h).unwrap();
    let n = ops::tensor_array_size_v3(&s.with_control_dependencies(&[&close]), &h, &f).unwrap();
    assert_eq!(fetch(&g, &[&n])[0].to_vec::<i32>().unwrap(), [2], "TensorFlow reads a closed array's size");
    let idx = c(&s, Tensor::vector(vec![1i32, 0, 1]));
    let e = ops::tensor_array_scatter_v3(&s, &h, &idx, &f32v(&s, &[2, 2], &[1., 2., 3., 4.]), &f).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("Dimensions must be equal, but are 3 and 2"), "{}", e.message);
}

#[test]
fn stacks_pop_what_was_pushed_last_first() {
    let g = Graph::new();
    let s = g.scope();
    let stack = ops::stack_v2(&s, &i32s(&s, -1), DType::Float, "st").unwrap();
    let p1 = ops::stack_push_v2(&s, &stack, &f32v(&s, &[2], &[1., 2.])).unwrap();
    let s1 = s.with_control_dependencies(&[&p1.op()]);
    let p2 = ops::stack_push_v2(&s1, &stack, &f32v(&s1, &[], &[3.])).unwrap();
    let s2 = s.with_control_dependencies(&[&p2.op()]);
    let a = ops::stack_pop_v2(&s2, &stack, DType::Float).unwrap();
    let s3 = s.with_control_dependencies(&[&a.op()]);
    let b = ops::stack_pop_v2(&s3, &stack, DType::Float).unwrap();
    let s4 = s.with_control_dependencies(&[&b.op()]);
    let empty = ops::stack_pop_v2(&s4, &stack, DType::Float).unwrap();
    let out = fetch(&g, &[&a, &b, &p1]);
    assert_eq!(f32s(&out[0]), (vec![], vec![3.]));
    assert_eq!(f32s(&out[1]), (vec![2], vec![1., 2.]));
    assert_eq!(f32s(&out[2]), (vec![2], vec![1., 2.]), "a push outputs its element");
    let e = Session::new(&g).unwrap().run(&[], &[&empty], &[]).unwrap_err();
    assert_eq!(e.message, "StackPopV2 'StackPopV2_2': Stack[st_0] is empty.");
    // a bounded stack refuses to grow past max_size; a closed one refuses pushes
    let bounded = ops::stack_v2(&s, &i32s(&s, 1), DType::Float, "").unwrap();
    let q1 = ops::stack_push_v2(&s, &bounded, &f32v(&s, &[], &[1.])).unwrap();
    let q2 = ops::stack_push_v2(&s.with_control_dependencies(&[&q1.op()]), &bounded, &f32v(&s, &[], &[2.])).unwrap();
    let e = Session::new(&g).unwrap().run(&[], &[&q2], &[]).unwrap_err();
    assert_eq!(e.message, format!("StackPushV2 '{}': Stack[StackV2_1_0] overflowed its max_size (1)", q2.op().name()));
    let close = ops::stack_close_v2(&s, &stack).unwrap();
    let late = ops::stack_push_v2(&s.with_control_dependencies(&[&close]), &stack, &f32v(&s, &[], &[1.])).unwrap();
    let e = Session::new(&g).unwrap().run(&[], &[&late], &[]).unwrap_err();
    assert_eq!(e.message, format!("StackPushV2 '{}': Stack[st_0] has already been closed.", late.op().name()));
}

/// Gradients through reads (TensorArrayReadV3 → a write into the gradient array), a
/// gather (→ scatter) and a scatter (→ gather of the gradient array), checked against
/// finite differences; the gradient ops carry TensorFlow's names and `source`.
#[test]
fn gradients_through_scatter_read_and_gather_match_finite_differences() {
    let x = (vec![3, 2], vec![0.5, -1.0, 2.0, 0.25, -0.75, 1.5]);
    check_gradients(&[x], 1e-6, |s, xs| {
        let keep = TensorArrayOptions { element_shape: Shape::known(&[2]), ..opts() };
        let (h, f) = ops::tensor_array_v3(s, &i32s(s, 3), DType::Double, &keep).unwrap();
        let idx = c(s, Tensor::vector(vec![0i32, 1, 2]));
        let f = ops::tensor_array_scatter_v3(s, &h, &idx, &xs[0], &f).unwrap();
        let r0 = ops::tensor_array_read_v3(s, &h, &i32s(s, 0), &f, DType::Double).unwrap();
        let r2 = ops::tensor_array_read_v3(s, &h, &i32s(s, 2), &f, DType::Double).unwrap();
        let g1 = ops::tensor_array_gather_v3(
            s,
            &h,
            &c(s, Tensor::vector(vec![1i32])),
            &f,
            DType::Double,
            &Shape::known(&[2]),
        )
        .unwrap();
        let w = c(s, Tensor::new(&[2], vec![3.0f64, -2.0]).unwrap());
        let a = ops::mul(s, &r0, &w).unwrap();
        let b = ops::mul(s, &r2, &r2).unwrap();
        let sum = ops::add(s, &a, &b).unwrap();
        let g1 = ops::reshape(s, &g1, &c(s, Tensor::vector(vec![2i32]))).unwrap();
        ops::mul(s, &sum, &ops::tanh(s, &g1).unwrap()).unwrap()
    });
}

/// Gradients through writes (→ reads of the gradient array) and a split and concat
/// (→ concat and split of the gradient array).
#[test]
fn gradients_through_write_split_and_concat_match_finite_differences() {
    let a = (vec![2], vec![0.5, -1.0]);
    let b = (vec![3, 2], vec![2.0, 0.25, -0.75, 1.5, 0.1, -0.3]);
    check_gradients(&[a, b], 1e-6, |s, xs| {
        let (h, f) = ops::tensor_array_v3(s, &i32s(s, 2), DType::Double, &opts()).unwrap();
        let f = ops::tensor_array_write_v3(s, &h, &i32s(s, 0), &xs[0], &f).unwrap();
        let x2 = ops::mul(s, &xs[0], &xs[0]).unwrap();
        let f = ops::tensor_array_write_v3(s, &h, &i32s(s, 1), &x2, &f).unwrap();
        let stacked = ops::tensor_array_gather_v3(
            s,
            &h,
            &c(s, Tensor::vector(vec![1i32, 0])),
            &f,
            DType::Double,
            &Shape::unknown(),
        )
        .unwrap();
        let (h2, f2) = ops::tensor_array_v3(s, &i32s(s, 2), DType::Double, &opts()).unwrap();
        let lengths = c(s, Tensor::vector(vec![2i64, 1]));
        let f2 = ops::tensor_array_split_v3(s, &h2, &xs[1], &lengths, &f2).unwrap();
        let (cat, _) = ops::tensor_array_concat_v3(s, &h2, &f2, DType::Double, &Shape::unknown()).unwrap();
        let cat = ops::tanh(s, &cat).unwrap();
        let w = c(s, Tensor::new(&[2, 2], vec![1.0f64, 2.0, -1.0, 0.5]).unwrap());
        let first = ops::mul(s, &stacked, &w).unwrap();
        ops::concat(s, &[first, cat], 0).unwrap()
    });
}

#[test]
fn gradient_ops_carry_tensorflows_names_and_source() {
    let g = Graph::new();
    let s = g.scope();
    let x = f32v(&s, &[2], &[1., 2.]);
    let (h, f) = new_ta(&s, 1, opts());
    let f = ops::tensor_array_write_v3(&s, &h, &i32s(&s, 0), &x, &f).unwrap();
    let r = ops::tensor_array_read_v3(&s, &h, &i32s(&s, 0), &f, DType::Float).unwrap();
    let y = ops::mul(&s, &r, &r).unwrap();
    let dx = gradients(&[y], std::slice::from_ref(&x), None).unwrap()[0].clone().unwrap();
    let grad = g.operation_by_name("gradients/TensorArrayReadV3_grad/TensorArrayGrad/TensorArrayGradV3").unwrap();
    assert_eq!(grad.op_type(), "TensorArrayGradV3");
    assert!(
        matches!(grad.node().attrs.get("source"), Some(tensorgraph::graph::AttrValue::String(v)) if v == b"gradients")
    );
    for name in [
        "gradients/TensorArrayReadV3_grad/TensorArrayGrad/gradient_flow",
        "gradients/TensorArrayReadV3_grad/TensorArrayWrite/TensorArrayWriteV3",
        "gradients/TensorArrayWriteV3_grad/flow_out",
        "gradients/TensorArrayWriteV3_grad/write_barrier",
        "gradients/TensorArrayWriteV3_grad/TensorArrayGrad/TensorArrayGradV3",
        "gradients/TensorArrayWriteV3_grad/TensorArrayReadV3",
    ] {
        g.operation_by_name(name).unwrap_or_else(|_| panic!("{name} missing"));
    }
    assert_eq!(f32s(&fetch(&g, &[&dx])[0]), (vec![2], vec![2., 4.]));
}
