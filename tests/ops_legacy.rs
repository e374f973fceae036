//! TensorFlow 1.x's op types built with tensorgraph's builders: values, errors and gradients
//! against TensorFlow 2.21. Expected values come from `scripts/legacy_fixtures.py` (which
//! prints them) or from the one-line snippets in the comments, run in the TF 2.21 venv with
//! `tf.compat.v1` graph mode (`raw = tf.raw_ops`).

mod common;
use common::{check_gradients, one, weighted};
use tensorgraph::train::gradients;
use tensorgraph::{ops, Code, DType, Graph, Output, Session, Shape, Tensor};

fn c(g: &Graph, t: Tensor) -> Output {
    ops::constant(&g.scope(), t).unwrap()
}

fn f32s(t: &Tensor) -> (Vec<usize>, Vec<f32>) {
    (t.shape().to_vec(), t.to_vec::<f32>().unwrap())
}

fn run(g: &Graph, o: &Output) -> Tensor {
    Session::new(g).unwrap().fetch(&[], o).unwrap()
}

fn run_err(g: &Graph, o: &Output) -> tensorgraph::Error {
    Session::new(g).unwrap().fetch(&[], o).unwrap_err()
}

fn x22(g: &Graph) -> Output {
    c(g, Tensor::new(&[2, 2], vec![1f32, 2., 3., 4.]).unwrap())
}

#[test]
fn add_v1_broadcasts_numbers_and_concatenates_strings() {
    let g = Graph::new();
    let s = g.scope();
    let y = c(&g, Tensor::new(&[1, 2], vec![-2f32, 0.5]).unwrap());
    let a = ops::add_v1(&s, &x22(&g), &y).unwrap();
    assert_eq!(a.name(), "Add:0");
    assert_eq!(a.op().op_type(), "Add");
    // raw.Add(x=[[1,2],[3,4]], y=[[-2,0.5]])
    assert_eq!(f32s(&run(&g, &a)), (vec![2, 2], vec![-1.0, 2.5, 1.0, 4.5]));
    // raw.Add(x=[["a"],["b"]], y=["x","yz","w"]) -> [[ax ayz aw] [bx byz bw]]
    let sa = c(&g, Tensor::strings(&[2, 1], vec![b"a".to_vec(), b"b".to_vec()]).unwrap());
    let sb = c(&g, Tensor::strings(&[3], vec![b"x".to_vec(), b"yz".to_vec(), b"w".to_vec()]).unwrap());
    let st = ops::add_v1(&s, &sa, &sb).unwrap();
    assert_eq!(st.shape(), Shape::known(&[2, 3]));
    let want: Vec<Vec<u8>> = ["ax", "ayz", "aw", "bx", "byz", "bw"].iter().map(|s| s.as_bytes().to_vec()).collect();
    assert_eq!(run(&g, &st), Tensor::strings(&[2, 3], want).unwrap());
    let bad = c(&g, Tensor::new(&[3], vec![1f32, 2., 3.]).unwrap());
    let e = ops::add_v1(&s, &x22(&g), &bad).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("Dimensions must be equal, but are 2 and 3"), "{e}");
}

#[test]
fn div_v1_truncates_integers_as_cpp() {
    let g = Graph::new();
    let s = g.scope();
    let y = c(&g, Tensor::new(&[1, 2], vec![-2f32, 0.5]).unwrap());
    let d = ops::div_v1(&s, &x22(&g), &y).unwrap();
    assert_eq!(d.op().op_type(), "Div");
    assert_eq!(f32s(&run(&g, &d)), (vec![2, 2], vec![-0.5, 4.0, -1.5, 8.0]));
    // raw.Div(x=[-7,7,-7,7,-8,0], y=[2,-2,-2,2,3,5]) -> [-3 -3 3 3 -2 0] (not Python's floor)
    let xi = c(&g, Tensor::vector(vec![-7i32, 7, -7, 7, -8, 0]));
    let yi = c(&g, Tensor::vector(vec![2i32, -2, -2, 2, 3, 5]));
    let di = ops::div_v1(&s, &xi, &yi).unwrap();
    assert_eq!(run(&g, &di).to_vec::<i32>().unwrap(), [-3, -3, 3, 3, -2, 0]);
    // raw.Div(x=[-7,7] int64, y=[2,-2]) -> [-3 -3]; raw.Div(x=[INT32_MIN], y=[-1]) -> [INT32_MIN]
    let x64 = c(&g, Tensor::vector(vec![-7i64, 7]));
    let y64 = c(&g, Tensor::vector(vec![2i64, -2]));
    assert_eq!(run(&g, &ops::div_v1(&s, &x64, &y64).unwrap()).to_vec::<i64>().unwrap(), [-3, -3]);
    let min = c(&g, Tensor::vector(vec![i32::MIN]));
    let m1 = c(&g, Tensor::vector(vec![-1i32]));
    assert_eq!(run(&g, &ops::div_v1(&s, &min, &m1).unwrap()).to_vec::<i32>().unwrap(), [i32::MIN]);
    // raw.Div(x=[-7,7], y=[0,1]) -> InvalidArgumentError "Integer division by zero"
    let z = c(&g, Tensor::vector(vec![0i32, 1]));
    let e = run_err(&g, &ops::div_v1(&s, &c(&g, Tensor::vector(vec![-7i32, 7])), &z).unwrap());
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("Integer division by zero"), "{e}");
    // raw.Div(x=[] int32, y=0) -> [] (no element is divided)
    let empty = ops::div_v1(&s, &c(&g, Tensor::vector(Vec::<i32>::new())), &c(&g, Tensor::scalar(0i32))).unwrap();
    assert_eq!(run(&g, &empty).shape(), &[0usize][..]);
    // raw.Div(x=[-7.,7.,0.], y=[2.,0.,0.]) -> [-3.5 inf nan]
    let xf = c(&g, Tensor::vector(vec![-7f32, 7., 0.]));
    let yf = c(&g, Tensor::vector(vec![2f32, 0., 0.]));
    let v = run(&g, &ops::div_v1(&s, &xf, &yf).unwrap()).to_vec::<f32>().unwrap();
    assert_eq!(v[..2], [-3.5, f32::INFINITY]);
    assert!(v[2].is_nan());
}

#[test]
fn inv_and_inv_grad() {
    let g = Graph::new();
    let s = g.scope();
    let x = x22(&g);
    let inv = ops::inv(&s, &x).unwrap();
    assert_eq!(inv.op().op_type(), "Inv");
    let ig = s.op("InvGrad", "InvGrad").input(&inv).input(&x).attr("T", DType::Float).build_output().unwrap();
    // raw.Inv(x); raw.InvGrad(y=inv, dy=x)
    assert_eq!(f32s(&run(&g, &inv)).1, [1.0, 0.5, 0.333_333_34, 0.25]);
    assert_eq!(f32s(&run(&g, &ig)).1, [-1.0, -0.5, -0.333_333_37, -0.25]);
    // raw.Inv(x=[2,-4,1,3]) has no int32 CPU kernel in TF; refused when built here
    let e = ops::inv(&s, &c(&g, Tensor::vector(vec![2i32]))).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
}

#[test]
fn rank_is_computed_when_run() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s, DType::Float, Shape::unknown()).unwrap();
    let r = ops::rank(&s, &x).unwrap();
    assert_eq!((r.dtype(), r.shape()), (DType::Int32, Shape::scalar()));
    let sess = Session::new(&g).unwrap();
    let out = sess.fetch(&[(&x, Tensor::zeros(DType::Float, &[2, 3, 4]))], &r).unwrap();
    assert_eq!(out, Tensor::scalar(3i32));
}

#[test]
fn select_v1_condition_forms() {
    let g = Graph::new();
    let s = g.scope();
    let x = x22(&g);
    let x10 = ops::mul(&s, &x, &c(&g, Tensor::scalar(10f32))).unwrap();
    let neg = ops::neg(&s, &x).unwrap();
    let vec_c = c(&g, Tensor::vector(vec![true, false]));
    let sel = ops::select_v1(&s, &vec_c, &x, &x10).unwrap();
    assert_eq!(sel.name(), "Select:0");
    // raw.Select(condition=[True,False], x=x, y=x*10) -> [[1 2] [30 40]]
    assert_eq!(f32s(&run(&g, &sel)).1, [1.0, 2.0, 30.0, 40.0]);
    let scalar = ops::select_v1(&s, &c(&g, Tensor::scalar(false)), &x, &neg).unwrap();
    assert_eq!(f32s(&run(&g, &scalar)).1, [-1.0, -2.0, -3.0, -4.0]);
    let same = c(&g, Tensor::new(&[2, 2], vec![true, false, false, true]).unwrap());
    assert_eq!(f32s(&run(&g, &ops::select_v1(&s, &same, &x, &neg).unwrap())).1, [1.0, -2.0, -3.0, 4.0]);
    // strings too (any dtype)
    let a = c(&g, Tensor::strings(&[2], vec![b"a".to_vec(), b"b".to_vec()]).unwrap());
    let b = c(&g, Tensor::strings(&[2], vec![b"c".to_vec(), b"d".to_vec()]).unwrap());
    let ss = ops::select_v1(&s, &vec_c, &a, &b).unwrap();
    assert_eq!(run(&g, &ss), Tensor::strings(&[2], vec![b"a".to_vec(), b"d".to_vec()]).unwrap());
}

#[test]
fn select_v1_shape_errors_use_tensorflows_words() {
    let g = Graph::new();
    let s = g.scope();
    let x = x22(&g);
    // raw.Select(condition=[True,False,True], x=2x2, y=2x2): "Dimension 0 in both shapes must be
    // equal, but are 3 and 2. Shapes are [3] and [2]."
    let e = ops::select_v1(&s, &c(&g, Tensor::vector(vec![true, false, true])), &x, &x).unwrap_err();
    assert!(
        e.message.contains("Dimension 0 in both shapes must be equal, but are 3 and 2. Shapes are [3] and [2]."),
        "{e}"
    );
    let row = c(&g, Tensor::new(&[1, 2], vec![5f32, 6.]).unwrap());
    let e = ops::select_v1(&s, &c(&g, Tensor::vector(vec![true, false])), &x, &row).unwrap_err();
    assert!(
        e.message.contains("Dimension 0 in both shapes must be equal, but are 2 and 1. Shapes are [2,2] and [1,2]."),
        "{e}"
    );
    // unknown shapes reach the kernel: TF's run-time messages
    let cond = ops::placeholder(&s, DType::Bool, Shape::unknown()).unwrap();
    let t = ops::placeholder(&s, DType::Float, Shape::unknown()).unwrap();
    let sel = ops::select_v1(&s, &cond, &t, &t).unwrap();
    let sess = Session::new(&g).unwrap();
    let m = Tensor::new(&[2, 2], vec![1f32, 2., 3., 4.]).unwrap();
    let e = sess.fetch(&[(&cond, Tensor::vector(vec![true, false, true])), (&t, m.clone())], &sel).unwrap_err();
    assert!(e.message.ends_with("Number of batches of 'then' must match size of 'cond', but saw: 2 vs. 3"), "{e}");
    let e = sess.fetch(&[(&cond, Tensor::new(&[1, 2], vec![true, false]).unwrap()), (&t, m)], &sel).unwrap_err();
    assert!(e.message.ends_with("Inputs to operation Select_2 of type Select must have the same size and shape.  Input 0: [1,2] != input 1: [2,2]"), "{e}");
}

#[test]
fn batch_matmul_v1_values_and_errors() {
    let g = Graph::new();
    let s = g.scope();
    let a = c(&g, Tensor::new(&[2, 2, 3], (0..12).map(|v| v as f32).collect()).unwrap());
    let b = c(&g, Tensor::new(&[2, 3, 2], (0..12).map(|v| v as f32).collect()).unwrap());
    let p = ops::batch_matmul_v1(&s, &a, &b, false, false).unwrap();
    assert_eq!(p.shape(), Shape::known(&[2, 2, 2]));
    // raw.BatchMatMul(x=arange(12).reshape(2,2,3), y=arange(12).reshape(2,3,2))
    assert_eq!(f32s(&run(&g, &p)).1, [10.0, 13.0, 28.0, 40.0, 172.0, 193.0, 244.0, 274.0]);
    let q = ops::batch_matmul_v1(&s, &a, &a, false, true).unwrap();
    assert_eq!(f32s(&run(&g, &q)).1, [5.0, 14.0, 14.0, 50.0, 149.0, 212.0, 212.0, 302.0]);
    let ai = ops::cast(&s, &a, DType::Int32).unwrap();
    let bi = ops::cast(&s, &b, DType::Int32).unwrap();
    let pi = ops::batch_matmul_v1(&s, &ai, &bi, false, false).unwrap();
    assert_eq!(run(&g, &pi).to_vec::<i32>().unwrap(), [10, 13, 28, 40, 172, 193, 244, 274]);
    // TF: "Dimensions must be equal, but are 3 and 2" (inner); "Shape must be at least rank 2 but is rank 1"
    let e = ops::batch_matmul_v1(&s, &a, &a, false, false).unwrap_err();
    assert!(e.message.contains("Dimensions must be equal, but are 3 and 2"), "{e}");
    let v = c(&g, Tensor::vector(vec![1f32, 2.]));
    let e = ops::batch_matmul_v1(&s, &v, &v, false, false).unwrap_err();
    assert!(e.message.contains("Shape must be at least rank 2 but is rank 1"), "{e}");
    // different batch dimensions, known only when run: TF's kernel message
    let x = ops::placeholder(&s, DType::Float, Shape::unknown()).unwrap();
    let y = ops::placeholder(&s, DType::Float, Shape::unknown()).unwrap();
    let r = ops::batch_matmul_v1(&s, &x, &y, false, false).unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess
        .fetch(&[(&x, Tensor::zeros(DType::Float, &[2, 2, 3])), (&y, Tensor::zeros(DType::Float, &[1, 3, 2]))], &r)
        .unwrap_err();
    assert!(e.message.ends_with("In[0].dim(0) and In[1].dim(0) must be the same: [2,2,3] vs [1,3,2]"), "{e}");
}

#[test]
fn concat_v1_takes_the_axis_first() {
    let g = Graph::new();
    let s = g.scope();
    let y = c(&g, Tensor::new(&[2, 1], vec![-2f32, 0.5]).unwrap());
    let out = ops::concat_v1(&s, 1, &[x22(&g), y]).unwrap();
    assert_eq!(out.name(), "concat:0");
    assert_eq!(out.op().op_type(), "Concat");
    assert_eq!(f32s(&run(&g, &out)), (vec![2, 3], vec![1.0, 2.0, -2.0, 3.0, 4.0, 0.5]));
    let wide = c(&g, Tensor::zeros(DType::Float, &[2, 6]));
    let e = ops::concat_v1(&s, 0, &[wide, x22(&g)]).unwrap_err();
    assert!(e.message.contains("Dimension 1 in both shapes must be equal"), "{e}");
}

#[test]
fn split_and_split_v() {
    let g = Graph::new();
    let s = g.scope();
    let v = c(&g, Tensor::new(&[2, 6], (0..12).map(|x| x as f32).collect()).unwrap());
    let parts = ops::split(&s, &v, 3, 1).unwrap();
    assert_eq!(parts[1].name(), "split:1");
    assert_eq!(parts[0].shape(), Shape::known(&[2, 2]));
    // raw.Split(axis=1, value=arange(12).reshape(2,6), num_split=3)
    assert_eq!(f32s(&run(&g, &parts[0])).1, [0.0, 1.0, 6.0, 7.0]);
    assert_eq!(f32s(&run(&g, &parts[2])).1, [4.0, 5.0, 10.0, 11.0]);
    // raw.SplitV(value=v, size_splits=[1,-1,2], axis=-1, num_split=3)
    let pv = ops::split_v(&s, &v, &[1, -1, 2], -1).unwrap();
    assert_eq!(pv[1].shape(), Shape::known(&[2, 3]));
    assert_eq!(f32s(&run(&g, &pv[0])), (vec![2, 1], vec![0.0, 6.0]));
    assert_eq!(f32s(&run(&g, &pv[1])), (vec![2, 3], vec![1.0, 2.0, 3.0, 7.0, 8.0, 9.0]));
    // build-time errors in TF's words
    let e = ops::split(&s, &v, 4, 1).unwrap_err();
    assert!(e.message.contains("Dimension size must be evenly divisible by 4 but is 6"), "{e}");
    let e = ops::split(&s, &v, 2, 2).unwrap_err();
    assert!(e.message.contains("Dimension size, given by scalar input 2 must be in range [-2, 2)"), "{e}");
    let e = ops::split_v(&s, &v, &[1, 2, 2], 1).unwrap_err();
    assert!(e.message.contains("can't split axis of size 6 into pieces of size [1,2,2]"), "{e}");
    let e = ops::split_v(&s, &v, &[1, -1, -1], 1).unwrap_err();
    assert!(e.message.contains("size_splits can only have one -1"), "{e}");
    // run-time errors when the axis or sizes are fed
    let axis = ops::placeholder(&s, DType::Int32, Shape::scalar()).unwrap();
    let fed =
        s.op("Split", "split").input(&axis).input(&v).attr("num_split", 4i64).attr("T", DType::Float).build().unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess.fetch(&[(&axis, Tensor::scalar(1i32))], &fed.output(0).unwrap()).unwrap_err();
    assert!(
        e.message.ends_with(
            "Number of ways to split should evenly divide the split dimension, but got split_dim 1 (size = 6) and num_split 4"
        ),
        "{e}"
    );
    let sizes = ops::placeholder(&s, DType::Int32, Shape::known(&[3])).unwrap();
    let one = c(&g, Tensor::scalar(1i32));
    let fv = s
        .op("SplitV", "split")
        .input(&v)
        .input(&sizes)
        .input(&one)
        .attr("num_split", 3i64)
        .attr("T", DType::Float)
        .attr("Tlen", DType::Int32)
        .build()
        .unwrap();
    let e = sess.fetch(&[(&sizes, Tensor::vector(vec![1i32, 2, 2]))], &fv.output(0).unwrap()).unwrap_err();
    assert!(e.message.ends_with("Determined shape must either match input shape along split_dim exactly if fully specified, or be less than the size of the input along split_dim if not fully specified.  Got: 5"), "{e}");
    let e = sess.fetch(&[(&sizes, Tensor::vector(vec![1i32, -1, -1]))], &fv.output(0).unwrap()).unwrap_err();
    assert!(e.message.ends_with("There can only be one -1 in the input."), "{e}");
}

#[test]
fn dynamic_stitch_interleaves_and_zero_fills() {
    let g = Graph::new();
    let s = g.scope();
    let i0 = c(&g, Tensor::vector(vec![0i32, 2]));
    let i1 = c(&g, Tensor::new(&[2, 1], vec![1i32, 5]).unwrap());
    let i2 = c(&g, Tensor::vector(vec![2i32]));
    let d0 = c(&g, Tensor::new(&[2, 2], vec![1f32, 2., 3., 4.]).unwrap());
    let d1 = c(&g, Tensor::new(&[2, 1, 2], vec![5f32, 6., 7., 8.]).unwrap());
    let d2 = c(&g, Tensor::new(&[1, 2], vec![9f32, 10.]).unwrap());
    let m = ops::dynamic_stitch(&s, &[i0, i1, i2], &[d0, d1, d2]).unwrap();
    assert_eq!(m.shape(), Shape::known(&[6, 2]));
    // the stitch of scripts/legacy_fixtures.py: index 2 twice (the later wins), rows 3, 4 unset
    assert_eq!(f32s(&run(&g, &m)).1, [1.0, 2.0, 5.0, 6.0, 9.0, 10.0, 0.0, 0.0, 0.0, 0.0, 7.0, 8.0]);
    // raw.DynamicStitch(indices=[[0,-1]], data=[[1.,2]]) -> "indices[1] is out of range"
    let neg =
        ops::dynamic_stitch(&s, &[c(&g, Tensor::vector(vec![0i32, -1]))], &[c(&g, Tensor::vector(vec![1f32, 2.]))])
            .unwrap();
    assert!(run_err(&g, &neg).message.ends_with(": indices[1] is out of range"));
    // raw.DynamicStitch(indices=[[0,1]], data=[[1.,2,3]]) -> "Dimensions must be equal, but are 3 and 2"
    let e =
        ops::dynamic_stitch(&s, &[c(&g, Tensor::vector(vec![0i32, 1]))], &[c(&g, Tensor::vector(vec![1f32, 2., 3.]))])
            .unwrap_err();
    assert!(e.message.contains("Dimensions must be equal, but are 3 and 2"), "{e}");
}

#[test]
fn expand_dims_and_squeeze_variants() {
    let g = Graph::new();
    let s = g.scope();
    let x = x22(&g);
    // raw.ExpandDims(input=x, axis=[-1] (int64 vector)) -> shape [2,2,1]
    let dim = c(&g, Tensor::vector(vec![-1i64]));
    let e = s
        .op("ExpandDims", "ExpandDims")
        .input(&x)
        .input(&dim)
        .attr("T", DType::Float)
        .attr("Tdim", DType::Int64)
        .build_output()
        .unwrap();
    assert_eq!(e.shape(), Shape::known(&[2, 2, 1]));
    assert_eq!(f32s(&run(&g, &e)), (vec![2, 2, 1], vec![1.0, 2.0, 3.0, 4.0]));
    // raw.ExpandDims(input=x, axis=[1,2]) -> "'dim' input must be a tensor with a single value"
    let two = c(&g, Tensor::vector(vec![1i32, 2]));
    let err = s
        .op("ExpandDims", "ExpandDims")
        .input(&x)
        .input(&two)
        .attr("T", DType::Float)
        .attr("Tdim", DType::Int32)
        .build()
        .unwrap_err();
    assert!(err.message.contains("'dim' input must be a tensor with a single value"), "{err}");
    // raw.Squeeze(input=zeros([1,2,1]), axis=[-1]) -> shape [1,2]
    let z = c(&g, Tensor::zeros(DType::Float, &[1, 2, 1]));
    let q = s
        .op("Squeeze", "Squeeze")
        .input(&z)
        .attr("T", DType::Float)
        .attr("squeeze_dims", tensorgraph::graph::AttrValue::ListInt(vec![-1]))
        .build_output()
        .unwrap();
    assert_eq!(run(&g, &q).shape(), [1, 2]);
}

#[test]
fn gather_v1_gathers_along_axis_0() {
    let g = Graph::new();
    let s = g.scope();
    let v = c(&g, Tensor::new(&[2, 6], (0..12).map(|x| x as f32).collect()).unwrap());
    let idx = c(&g, Tensor::new(&[2, 1], vec![1i64, 0]).unwrap());
    let out = ops::gather_v1(&s, &v, &idx).unwrap();
    assert_eq!((out.name().as_str(), out.shape()), ("Gather:0", Shape::known(&[2, 1, 6])));
    // raw.Gather(params=arange(12).reshape(2,6), indices=[[1],[0]])
    assert_eq!(f32s(&run(&g, &out)).1, [6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    let bad = ops::gather_v1(&s, &v, &c(&g, Tensor::vector(vec![2i32]))).unwrap();
    assert!(run_err(&g, &bad).message.contains("indices[0] = 2 is not in [0, 2)"));
}

#[test]
fn variable_and_is_variable_initialized() {
    let g = Graph::new();
    let s = g.scope();
    let v = s.op("Variable", "v").attr("shape", Shape::known(&[2])).attr("dtype", DType::Float).build_output().unwrap();
    let init = ops::assign(&s, &v, &c(&g, Tensor::vector(vec![1f32, 2.]))).unwrap();
    let is = ops::is_variable_initialized(&s, &v).unwrap();
    assert_eq!(is.op().op_type(), "IsVariableInitialized");
    let plus = ops::add(&s, &v, &v).unwrap();
    let sess = Session::new(&g).unwrap();
    // raw.IsVariableInitialized(ref=raw.Variable(shape=[2], dtype=tf.float32)) -> False
    assert_eq!(sess.fetch(&[], &is).unwrap(), Tensor::scalar(false));
    let e = sess.fetch(&[], &plus).unwrap_err();
    assert_eq!(e.code, Code::FailedPrecondition);
    assert!(e.message.contains("Attempting to use uninitialized value v"), "{e}");
    sess.fetch(&[], &init).unwrap();
    assert_eq!(sess.fetch(&[], &is).unwrap(), Tensor::scalar(true));
    assert_eq!(sess.fetch(&[], &plus).unwrap().to_vec::<f32>().unwrap(), [2.0, 4.0]);
}

/// The (name, op type) of the gradient nodes tensorgraph builds for `build`'s output with
/// respect to its inputs, in a fresh graph.
fn grad_ops(build: impl Fn(&tensorgraph::Scope) -> (Output, Vec<Output>)) -> Vec<(String, String)> {
    let g = Graph::new();
    let (y, xs) = build(&g.scope());
    let n0 = g.num_ops();
    gradients(&[y], &xs, None).unwrap();
    g.operations()[n0..].iter().filter(|o| o.name().contains("_grad/")).map(|o| (o.name(), o.op_type())).collect()
}

fn names(v: &[(String, String)]) -> Vec<&str> {
    v.iter().map(|p| p.0.as_str()).collect()
}

#[test]
fn gradients_have_tensorflows_names() {
    // TensorFlow 2.21's names and op types from scripts/legacy_fixtures.py's gradient_names
    let ph = |s: &tensorgraph::Scope, shape: &[usize]| ops::placeholder(s, DType::Float, shape.to_vec()).unwrap();
    let sel = grad_ops(|s| {
        let (x, y) = (ph(s, &[2, 3]), ph(s, &[2, 3]));
        let cond = ops::constant(s, Tensor::vector(vec![true, false])).unwrap();
        (ops::select_v1(s, &cond, &x, &y).unwrap(), vec![x, y])
    });
    // (TF folds zeros_like of a known shape into a Const of that name)
    assert_eq!(
        names(&sel),
        ["gradients/Select_grad/zeros_like", "gradients/Select_grad/Select", "gradients/Select_grad/Select_1"]
    );
    let split = grad_ops(|s| {
        let v = ph(s, &[2, 6]);
        (ops::split(s, &v, 3, 1).unwrap()[1].clone(), vec![v])
    });
    assert_eq!(split.last().unwrap(), &("gradients/split_grad/concat".to_string(), "ConcatV2".to_string()));
    let split_v = grad_ops(|s| {
        let v = ph(s, &[2, 6]);
        (ops::split_v(s, &v, &[1, 5], 1).unwrap()[0].clone(), vec![v])
    });
    assert_eq!(split_v.last().unwrap(), &("gradients/split_grad/concat".to_string(), "ConcatV2".to_string()));
    let stitch = grad_ops(|s| {
        let (x, y) = (ph(s, &[2, 3]), ph(s, &[1, 3]));
        let i0 = ops::constant(s, Tensor::vector(vec![0i32, 2])).unwrap();
        let i1 = ops::constant(s, Tensor::vector(vec![1i32])).unwrap();
        (ops::dynamic_stitch(s, &[i0, i1], &[x.clone(), y.clone()]).unwrap(), vec![x, y])
    });
    assert_eq!(
        names(&stitch),
        [
            "gradients/DynamicStitch_grad/GatherV2/axis",
            "gradients/DynamicStitch_grad/GatherV2",
            "gradients/DynamicStitch_grad/GatherV2_1/axis",
            "gradients/DynamicStitch_grad/GatherV2_1"
        ]
    );
    let bmm = grad_ops(|s| {
        let (a, b) = (ph(s, &[2, 2, 3]), ph(s, &[2, 3, 2]));
        (ops::batch_matmul_v1(s, &a, &b, false, false).unwrap(), vec![a, b])
    });
    // TF 2.21 writes these two as BatchMatMulV2 (not registered here), with these names
    assert_eq!(names(&bmm), ["gradients/BatchMatMul_grad/MatMul", "gradients/BatchMatMul_grad/MatMul_1"]);
    let inv = grad_ops(|s| {
        let x = ph(s, &[3]);
        (ops::inv(s, &x).unwrap(), vec![x])
    });
    assert_eq!(inv, [("gradients/Inv_grad/ReciprocalGrad".to_string(), "ReciprocalGrad".to_string())]);
    let concat = grad_ops(|s| {
        let (x, y) = (ph(s, &[2, 3]), ph(s, &[2, 1]));
        (ops::concat_v1(s, 1, &[x.clone(), y.clone()]).unwrap(), vec![x, y])
    });
    let cn = names(&concat);
    assert!(cn.contains(&"gradients/concat_grad/ConcatOffset"), "{cn:?}");
    assert_eq!(cn[cn.len() - 2..], ["gradients/concat_grad/Slice", "gradients/concat_grad/Slice_1"]);
}

#[test]
fn gradients_match_finite_differences() {
    let a = one(&[2, 3], 1, -1.0, 1.0);
    let b = one(&[3], 2, 0.5, 2.0);
    check_gradients(&[a.clone(), b.clone()], 1e-6, |s, x| {
        let y = ops::add_v1(s, &x[0], &x[1]).unwrap();
        weighted(s, &y, &[2, 3], 7)
    });
    check_gradients(&[a.clone(), b], 1e-6, |s, x| {
        let y = ops::div_v1(s, &x[0], &x[1]).unwrap();
        weighted(s, &y, &[2, 3], 8)
    });
    check_gradients(&[one(&[4], 3, 0.5, 2.0)], 1e-6, |s, x| {
        let y = ops::inv(s, &x[0]).unwrap();
        weighted(s, &y, &[4], 9)
    });
    check_gradients(&[a.clone(), one(&[2, 3], 4, -1.0, 1.0)], 1e-6, |s, x| {
        let cond = ops::constant(s, Tensor::vector(vec![false, true])).unwrap();
        let y = ops::select_v1(s, &cond, &x[0], &x[1]).unwrap();
        weighted(s, &y, &[2, 3], 10)
    });
    for (adj_x, adj_y) in [(false, false), (false, true), (true, false), (true, true)] {
        let xs = if adj_x { [2, 3, 2] } else { [2, 2, 3] };
        let ys = if adj_y { [2, 4, 3] } else { [2, 3, 4] };
        check_gradients(&[one(&xs, 5, -1.0, 1.0), one(&ys, 6, -1.0, 1.0)], 1e-6, |s, x| {
            let y = ops::batch_matmul_v1(s, &x[0], &x[1], adj_x, adj_y).unwrap();
            weighted(s, &y, &[2, 2, 4], 11)
        });
    }
    check_gradients(&[a.clone(), one(&[2, 1], 12, -1.0, 1.0)], 1e-6, |s, x| {
        let y = ops::concat_v1(s, 1, &[x[0].clone(), x[1].clone()]).unwrap();
        weighted(s, &y, &[2, 4], 13)
    });
    check_gradients(&[one(&[2, 6], 14, -1.0, 1.0)], 1e-6, |s, x| {
        let p = ops::split(s, &x[0], 3, 1).unwrap();
        let q = ops::split_v(s, &x[0], &[1, -1], 0).unwrap();
        // only some outputs used: the others' gradients are zeros
        ops::add(
            s,
            &weighted(s, &p[2], &[2, 2], 15),
            &ops::reduce_sum(s, &weighted(s, &q[1], &[1, 6], 16), None, false).unwrap(),
        )
        .unwrap()
    });
    check_gradients(&[one(&[4, 3], 19, -1.0, 1.0)], 1e-6, |s, x| {
        // index 2 twice: its gradient rows add up
        let idx = ops::constant(s, Tensor::new(&[3, 1], vec![2i32, 0, 2]).unwrap()).unwrap();
        let y = ops::gather_v1(s, &x[0], &idx).unwrap();
        weighted(s, &y, &[3, 1, 3], 20)
    });
    check_gradients(&[a, one(&[1, 3], 17, -1.0, 1.0)], 1e-6, |s, x| {
        let i0 = ops::constant(s, Tensor::vector(vec![0i32, 2])).unwrap();
        let i1 = ops::constant(s, Tensor::vector(vec![1i32])).unwrap();
        let y = ops::dynamic_stitch(s, &[i0, i1], &[x[0].clone(), x[1].clone()]).unwrap();
        weighted(s, &y, &[3, 3], 18)
    });
}
