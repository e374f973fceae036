//! Sizes that come from input are checked and allocated fallibly: a shape whose element
//! count overflows is `InvalidArgument`, memory that cannot be had is `ResourceExhausted`
//! naming the dtype, the element count and the bytes; never an aborted process or a panic.
//! (The sizes asked for here exceed any address space, so no machine can grant them.)

use tensorgraph::{ops, Code, DType, Graph, Output, Session, Tensor};

const BIG: usize = 1 << 60;

fn oom(dtype: &str, n: usize, elem_bytes: usize) -> String {
    format!("OOM when allocating a {dtype} tensor of {n} elements ({} bytes)", n * elem_bytes)
}

fn run_err(g: &Graph, y: &Output) -> tensorgraph::Error {
    Session::new(g).unwrap().run(&[], &[y], &[]).unwrap_err()
}

#[test]
fn tensor_constructors_report_instead_of_aborting() {
    // the case: 2^50 float32 elements
    let e = Tensor::try_zeros(DType::Float, &[1 << 40, 1 << 10]).unwrap_err();
    assert_eq!(e.code, Code::ResourceExhausted);
    assert_eq!(e.message, oom("float32", 1 << 50, 4));
    let e = Tensor::try_zeros(DType::String, &[BIG]).unwrap_err();
    assert_eq!(e.code, Code::ResourceExhausted);
    assert!(e.message.starts_with(&format!("OOM when allocating a string tensor of {BIG} elements")), "{e}");
    // an element count beyond usize is the shape's fault
    let e = Tensor::try_zeros(DType::Float, &[usize::MAX, 2]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(e.message, format!("shape [{}, 2] has more elements than fit in memory", usize::MAX));
    let e = Tensor::filled(&Tensor::scalar(1.5f64), &[BIG]).unwrap_err();
    assert_eq!(e.code, Code::ResourceExhausted);
    assert_eq!(e.message, oom("float64", BIG, 8));
    let e = Tensor::filled(&Tensor::scalar(1.5f64), &[usize::MAX, 3]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    // small sizes still work
    assert_eq!(Tensor::try_zeros(DType::Int32, &[2, 2]).unwrap().to_vec::<i32>().unwrap(), vec![0; 4]);
}

#[test]
#[should_panic(expected = "has more elements than fit in memory")]
fn zeros_panics_with_a_message_on_overflow() {
    // the infallible constructor documents its panic; the message says why
    let _ = Tensor::zeros(DType::Float, &[usize::MAX, 2]);
}

#[test]
fn kernels_sized_by_their_inputs_report_oom() {
    let g = Graph::new();
    let s = g.scope();
    let one = ops::constant(&s, Tensor::scalar(1.0f32)).unwrap();

    // Fill: dims is a tensor
    let dims = ops::constant(&s, Tensor::vector(vec![1i64 << 40, 1 << 20])).unwrap();
    let e = run_err(&g, &ops::fill(&s, &dims, &one).unwrap());
    assert_eq!(e.code, Code::ResourceExhausted, "{e}");
    assert!(e.message.contains(&oom("float32", BIG, 4)), "{e}");

    // Tile: the output is input * multiples; an overflowing product is InvalidArgument
    let x = ops::constant(&s, Tensor::new(&[1, 1], vec![2.0f32]).unwrap()).unwrap();
    let e = run_err(&g, &ops::tile(&s, &x, &[1 << 30, 1 << 30]).unwrap());
    assert_eq!(e.code, Code::ResourceExhausted, "{e}");
    assert!(e.message.contains(&oom("float32", BIG, 4)), "{e}");
    let e = run_err(&g, &ops::tile(&s, &x, &[1 << 40, 1 << 40]).unwrap());
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    assert!(e.message.contains("has more elements than fit in memory"), "{e}");

    // RandomUniform: the message names the output's dtype (float32), not a wider buffer
    let r = ops::random_uniform(&s, &[1 << 40, 1 << 20], 0.0, 1.0, DType::Float, Some(1)).unwrap();
    let e = run_err(&g, &r);
    assert_eq!(e.code, Code::ResourceExhausted, "{e}");
    assert!(e.message.contains(&oom("float32", BIG, 4)), "{e}");
    // a dimension beyond int32 makes an int64 shape, not a truncated one
    let shape = g.operation_by_name("random_uniform/shape").unwrap();
    assert_eq!(shape.output(0).unwrap().dtype(), DType::Int64);

    // UnsortedSegmentSum: num_segments is a tensor
    let data = ops::constant(&s, Tensor::vector(vec![1.0f64])).unwrap();
    let ids = ops::constant(&s, Tensor::vector(vec![0i32])).unwrap();
    let n = ops::constant(&s, Tensor::scalar(BIG as i64)).unwrap();
    let e = run_err(&g, &ops::unsorted_segment_sum(&s, &data, &ids, &n).unwrap());
    assert_eq!(e.code, Code::ResourceExhausted, "{e}");
    assert!(e.message.contains(&oom("float64", BIG, 8)), "{e}");

    // MatMul of [2^30, 0] and [0, 2^30]: 2^60 zeros from two empty inputs
    let a = ops::constant(&s, Tensor::zeros(DType::Float, &[1 << 30, 0])).unwrap();
    let b = ops::constant(&s, Tensor::zeros(DType::Float, &[0, 1 << 30])).unwrap();
    let e = run_err(&g, &ops::matmul(&s, &a, &b).unwrap());
    assert_eq!(e.code, Code::ResourceExhausted, "{e}");
    assert!(e.message.contains(&oom("float32", BIG, 4)), "{e}");
}
