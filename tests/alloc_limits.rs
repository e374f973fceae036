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

/// Allocations sized by file contents are bounded by what the file holds (issue 12, item 2).
mod bounded_by_input {
    use tensorgraph::format::checkpoint::table::{build_table, read_table, TableOptions};
    use tensorgraph::format::proto::{AttrValue, AttrValueKind};
    use tensorgraph::format::proto::{GraphDef, NodeDef, TensorProto, TensorShapeProto, MAX_SPLAT_BYTES};
    use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
    use tensorgraph::{Code, DType, Graph};

    fn splat(dims: &[usize], value: f32) -> TensorProto {
        TensorProto {
            dtype: 1,
            tensor_shape: Some(TensorShapeProto::from_dims(dims)),
            float_val: vec![value],
            ..Default::default()
        }
    }

    #[test]
    fn a_splat_tensor_proto_expands_only_up_to_the_limit() {
        assert_eq!(MAX_SPLAT_BYTES, 1 << 30);
        // 2^29 float32 values from one: 2 GiB, over the limit, refused before any allocation
        let e = splat(&[1 << 28, 2], 1.5).to_tensor().unwrap_err();
        assert_eq!(e.code, Code::ResourceExhausted);
        assert_eq!(
            e.message,
            "TensorProto of dtype float32 and shape [268435456, 2] gives 1 value(s) to repeat over 536870912 elements, \
             more than the 1073741824 bytes a short value list may expand to; build such a tensor with Fill (tf.fill) \
             instead of a constant"
        );
        // strings count as their in-memory size (a Vec per element)
        let mut p = splat(&[1 << 26], 0.0);
        p.dtype = 7;
        p.float_val.clear();
        p.string_val = vec![b"a".to_vec()];
        assert!(p.to_tensor().unwrap_err().message.contains("over 67108864 elements"));
        // within the limit the splat is expanded as TensorFlow does
        let t = splat(&[2, 3], 2.5).to_tensor().unwrap();
        assert_eq!(t.dtype(), DType::Float);
        assert_eq!(t.to_vec::<f32>().unwrap(), [2.5; 6]);
        // the same for a Const in a GraphDef of a few bytes: an error, not 2 GiB
        let mut attr = std::collections::BTreeMap::new();
        attr.insert("dtype".to_string(), AttrValue { value: Some(AttrValueKind::Type(1)) });
        attr.insert(
            "value".to_string(),
            AttrValue { value: Some(AttrValueKind::Tensor(Box::new(splat(&[1 << 28, 2], 1.5)))) },
        );
        let node =
            NodeDef { name: "big".into(), op: "Const".into(), attr: attr.into_iter().collect(), ..Default::default() };
        let gd = GraphDef { node: vec![node], ..Default::default() };
        let e = import_graph_def(&Graph::new(), &gd, &ImportGraphDefOptions::new()).unwrap_err();
        assert_eq!(e.code, Code::ResourceExhausted, "{e}");
        assert!(e.message.contains("'big'") || e.message.contains("big"), "{e}");
        assert!(e.message.contains("a short value list may expand to"), "{e}");
    }

    #[test]
    fn prefix_compressed_keys_cannot_spell_out_more_than_the_file_allows() {
        // keys x, xx, xxx, ...: each entry stores one new byte, the keys add up quadratically
        let entries: Vec<(Vec<u8>, Vec<u8>)> = (1..3000).map(|i| (vec![b'x'; i], Vec::new())).collect();
        let opts = TableOptions { block_size: 1 << 30, restart_interval: 1 << 20 };
        let table = build_table(&entries, opts).unwrap();
        assert!(table.len() < 16_000, "{}", table.len());
        let e = read_table(&table, "keys.index").unwrap_err();
        assert_eq!(e.code, Code::DataLoss);
        assert_eq!(
            e.message,
            "corrupted SSTable keys.index: its entries spell out more than 64 times the file's size (prefix-compressed keys)"
        );
        // the same keys with a restart every 16 entries read (restarts cost their key in the file)
        let short: Vec<(Vec<u8>, Vec<u8>)> = entries[..1000].to_vec();
        let table = build_table(&short, TableOptions::default()).unwrap();
        assert_eq!(read_table(&table, "ok.index").unwrap(), short);
    }
}
