//! Summary ops (ScalarSummary, HistogramSummary, ImageSummary, TensorSummaryV2,
//! MergeSummary) and the `tf.compat.v1.summary` builders: the serialized `Summary` bytes
//! TensorFlow 2.21 gives for the same inputs (hex from `scripts/gen_summary_reference.py`;
//! images compared by their decoded pixels, as PNG encoders differ), TensorFlow's error
//! messages, node names and the `summaries` collection.

use prost::Message;
use tensorgraph::format::proto::{Summary, SummaryKind};
use tensorgraph::ops::summary::{self, histogram::histogram, image::image};
use tensorgraph::{ops, Code, DType, Graph, Output, Session, Tensor};

fn run(out: &Output) -> tensorgraph::Result<Vec<u8>> {
    let sess = Session::new(out.graph()).unwrap();
    let t = sess.run(&[], &[out], &[])?.remove(0);
    assert_eq!((t.dtype(), t.shape().len()), (DType::String, 0));
    match t.storage() {
        tensorgraph::tensor::Storage::Str(v) => Ok(v[0].clone()),
        _ => unreachable!(),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn konst(g: &Graph, t: Tensor) -> Output {
    ops::constant(&g.scope(), t).unwrap()
}

fn raw_scalar(g: &Graph, tags: Tensor, values: Tensor) -> Output {
    let s = g.scope();
    let (tags, values) = (konst(g, tags), konst(g, values));
    s.op("ScalarSummary", "ScalarSummary").input(&tags).input(&values).attr("T", values.dtype()).build_output().unwrap()
}

fn strs(shape: &[usize], v: &[&str]) -> Tensor {
    Tensor::strings(shape, v.iter().map(|s| s.as_bytes().to_vec()).collect()).unwrap()
}

#[test]
fn scalar_summaries_match_tensorflow() {
    let g = Graph::new();
    let s = g.scope();
    let loss = summary::scalar(&s, "loss", &konst(&g, Tensor::scalar(0.25f32))).unwrap();
    assert_eq!(hex(&run(&loss).unwrap()), "0a0b0a046c6f7373150000803e");
    let n = summary::scalar(&s, "n", &konst(&g, Tensor::scalar(7i32))).unwrap();
    assert_eq!(hex(&run(&n).unwrap()), "0a080a016e150000e040");
    let v = raw_scalar(&g, strs(&[2], &["a", "b"]), Tensor::vector(vec![1.5f64, -2.0]));
    assert_eq!(hex(&run(&v).unwrap()), "0a080a0161150000c03f0a080a016215000000c0");
    let bad = raw_scalar(&g, strs(&[2], &["a", "b"]), Tensor::vector(vec![1f32, 2., 3.]));
    let e = run(&bad).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (Code::InvalidArgument, "ScalarSummary 'ScalarSummary_1': tags and values are not the same shape: [2] != [3]")
    );
}

#[test]
fn histogram_summaries_match_tensorflow() {
    let g = Graph::new();
    let s = g.scope();
    let h = histogram(&s, "h", &konst(&g, Tensor::vector(vec![1.5f32, -2., 3.25, 0., 0.001, 7.]))).unwrap();
    assert_eq!(hex(&run(&h).unwrap()), "0a87020a01682a81020900000000000000c0110000000000001c401900000000000018402100006f128380234029efbd3104007450403268e011f10c744d01c0dc94cd2e8d75ffbf000000000000000011ea2d819997713d6ba0315efa734f3f6e4b9b80964c513f8545cc9fc0a2f73f794cfae2d3fff93f0d9cc5a02955094075f872caaddd0b402988ead0c2261b40612f354cd6dd1d40ffffffffffffef7f3a680000000000000000000000000000f03f0000000000000000000000000000f03f0000000000000000000000000000f03f0000000000000000000000000000f03f0000000000000000000000000000f03f0000000000000000000000000000f03f0000000000000000");
    let e = histogram(&s, "e", &konst(&g, Tensor::new(&[0], Vec::<f32>::new()).unwrap())).unwrap();
    assert_eq!(
        hex(&run(&e).unwrap()),
        "0a2b0a01652a2609ffffffffffffef7f11ffffffffffffefff3208ffffffffffffef7f3a080000000000000000"
    );
    let i = histogram(&s, "i", &konst(&g, Tensor::new(&[2, 2], vec![3i64, 3, -1, 100]).unwrap())).unwrap();
    assert_eq!(hex(&run(&i).unwrap()), "0aa7010a01692aa10109000000000000f0bf110000000000005940190000000000001040210000000000405a4029000000008091c34032382b14facdbe24f0bf08996919155aedbf68bc10359a0707400d9cc5a029550940723b6014ce785840feda691649eb5a40ffffffffffffef7f3a380000000000000000000000000000f03f000000000000000000000000000000400000000000000000000000000000f03f0000000000000000");
    for (v, msg) in [(f32::NAN, "Nan in summary histogram for: bad"), (f32::INFINITY, "Infinity in Histogram for: bad")]
    {
        let g = Graph::new();
        let bad = histogram(&g.scope(), "bad", &konst(&g, Tensor::vector(vec![1.0f32, v]))).unwrap();
        let err = run(&bad).unwrap_err();
        assert_eq!((err.code, err.message.as_str()), (Code::InvalidArgument, msg));
    }
}

#[test]
fn text_and_tensor_summaries_match_tensorflow() {
    let g = Graph::new();
    let s = g.scope();
    let t = summary::text(&s, "note", &konst(&g, strs(&[], &["hello **world**"]))).unwrap();
    assert_eq!(
        hex(&run(&t).unwrap()),
        "0a270a046e6f7465421508071200420f68656c6c6f202a2a776f726c642a2a4a080a060a0474657874"
    );
    let t = summary::text(&s, "notes", &konst(&g, strs(&[2], &["a", "bc"]))).unwrap();
    assert_eq!(hex(&run(&t).unwrap()), "0a220a056e6f746573420f0807120412020802420161420262634a080a060a0474657874");
    let f = summary::tensor_summary(
        &s,
        "t",
        &konst(&g, Tensor::new(&[1, 2], vec![1f32, 2.]).unwrap()),
        &Default::default(),
    )
    .unwrap();
    assert_eq!(hex(&run(&f).unwrap()), "0a1d0a0174421608011208120208011202080222080000803f000000404a00");
    let e = summary::text(&s, "x", &konst(&g, Tensor::scalar(1f32))).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
}

#[test]
fn merge_matches_tensorflow_and_refuses_duplicate_tags() {
    let g = Graph::new();
    let s = g.scope();
    let a = summary::scalar(&s, "a", &konst(&g, Tensor::scalar(1f32))).unwrap();
    let b = summary::scalar(&s, "b", &konst(&g, Tensor::scalar(2f32))).unwrap();
    let m = summary::merge(&s, &[a.clone(), b]).unwrap();
    assert_eq!(m.name(), "Merge/MergeSummary:0");
    assert_eq!(hex(&run(&m).unwrap()), "0a080a0161150000803f0a080a01621500000040");
    let a2 = raw_scalar(&g, strs(&[], &["a"]), Tensor::scalar(2f32));
    let dup = summary::merge(&s, &[a, a2]).unwrap();
    let e = run(&dup).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (Code::InvalidArgument, "MergeSummary 'Merge_1/MergeSummary': Duplicate tag a found in summary inputs ")
    );
}

/// (tag, height, width, colorspace, pixels) of each image TensorFlow's ImageSummary wrote.
fn images(bytes: &[u8]) -> Vec<(String, i32, i32, i32, Vec<u8>)> {
    let s = Summary::decode(bytes).unwrap();
    s.value
        .into_iter()
        .map(|v| {
            let Some(SummaryKind::Image(img)) = v.value else { panic!("{} is not an image", v.tag) };
            let dec = png::Decoder::new(std::io::Cursor::new(img.encoded_image_string));
            let mut r = dec.read_info().unwrap();
            let mut px = vec![0; r.output_buffer_size().unwrap()];
            let info = r.next_frame(&mut px).unwrap();
            px.truncate(info.buffer_size());
            (v.tag, img.height, img.width, img.colorspace, px)
        })
        .collect()
}

#[test]
fn image_summaries_match_tensorflow() {
    let g = Graph::new();
    let s = g.scope();
    let f = image(&s, "f_pos", &konst(&g, Tensor::new(&[1, 2, 2, 1], vec![0f32, 0.5, 1.0, 0.25]).unwrap()), 3).unwrap();
    assert_eq!(images(&run(&f).unwrap()), vec![("f_pos/image/0".into(), 2, 2, 1, vec![0, 127, 255, 63])]);
    let neg = Tensor::new(&[1, 1, 2, 3], vec![-1f32, 0.5, 0.0, 1.0, 0.25, f32::NAN]).unwrap();
    let f = image(&s, "f_neg", &konst(&g, neg), 3).unwrap();
    assert_eq!(images(&run(&f).unwrap()), vec![("f_neg/image/0".into(), 1, 2, 3, vec![1, 191, 128, 255, 0, 0])]);
    let u8s = Tensor::new(&[2, 1, 2, 4], (0..16u8).map(|v| v * 7).collect()).unwrap();
    let u = image(&s, "u8", &konst(&g, u8s), 2).unwrap();
    assert_eq!(
        images(&run(&u).unwrap()),
        vec![
            ("u8/image/0".into(), 1, 2, 4, vec![0, 7, 14, 21, 28, 35, 42, 49]),
            ("u8/image/1".into(), 1, 2, 4, vec![56, 63, 70, 77, 84, 91, 98, 105])
        ]
    );
    let many = image(&s, "many", &konst(&g, Tensor::zeros(DType::Float, &[4, 1, 1, 1])), 3).unwrap();
    let tags: Vec<String> = images(&run(&many).unwrap()).into_iter().map(|i| i.0).collect();
    assert_eq!(tags, ["many/image/0", "many/image/1", "many/image/2"]);
    let one = image(&s, "one", &konst(&g, Tensor::zeros(DType::Float, &[2, 1, 1, 1])), 1).unwrap();
    assert_eq!(images(&run(&one).unwrap()), vec![("one/image".into(), 1, 1, 1, vec![0])]);
    for (shape, dims) in [(vec![1, 1, 1, 2], "[1,1,1,2]"), (vec![1, 1, 1], "[1,1,1]")] {
        let g = Graph::new();
        let bad = image(&g.scope(), "bad", &konst(&g, Tensor::zeros(DType::Float, &shape)), 3).unwrap();
        let e = run(&bad).unwrap_err();
        assert_eq!(e.message, format!("ImageSummary 'bad': Tensor must be 4-D with last dim 1, 3, or 4, not {dims}"));
    }
    // an image with no pixels: TensorFlow's InvalidArgument, not a PNG encoder failure
    let g = Graph::new();
    let empty = image(&g.scope(), "empty", &konst(&g, Tensor::zeros(DType::Float, &[1, 0, 2, 1])), 3).unwrap();
    let e = run(&empty).unwrap_err();
    assert_eq!(e.code, tensorgraph::Code::InvalidArgument);
    assert_eq!(e.message, "ImageSummary 'empty': input tensor must have non-zero dims. Found: [1, 0, 2, 1].");
}

#[test]
fn builders_name_ops_and_collect_them_as_tensorflow() {
    // tf.compat.v1.summary.* under TF 2.21 (scripts/gen_summary_reference.py, "names")
    let g = Graph::new();
    let s = g.scope();
    let x = konst(&g, Tensor::scalar(1f32));
    summary::scalar(&s, "loss", &x).unwrap();
    let train = s.name_scope("train");
    summary::scalar(&train, "loss", &x).unwrap();
    histogram(&train, "w b", &konst(&g, Tensor::vector(vec![1f32]))).unwrap();
    summary::text(&s, "note", &konst(&g, strs(&[], &["t"]))).unwrap();
    image(&s, "img", &konst(&g, Tensor::zeros(DType::Float, &[1, 1, 1, 1])), 3).unwrap();
    let merged = summary::merge_all(&g).unwrap().unwrap();
    let names: Vec<String> = g.tensors_in(summary::SUMMARIES).iter().map(|t| t.name()).collect();
    assert_eq!(names, ["loss:0", "train/loss:0", "train/w_b:0", "note:0", "img:0"]);
    for (name, op) in [
        ("loss/tags", "Const"),
        ("train/loss/tags", "Const"),
        ("train/w_b/tag", "Const"),
        ("train/w_b", "HistogramSummary"),
        ("note/serialized_summary_metadata", "Const"),
        ("note", "TensorSummaryV2"),
        ("img/tag", "Const"),
        ("img", "ImageSummary"),
        ("Merge/MergeSummary", "MergeSummary"),
    ] {
        assert_eq!(g.operation_by_name(name).unwrap().op_type(), op, "{name}");
    }
    let tags: Vec<String> =
        Summary::decode(run(&merged).unwrap().as_slice()).unwrap().value.into_iter().map(|v| v.tag).collect();
    assert_eq!(tags, ["loss", "train/loss", "train/w_b", "note", "img/image/0"]);
    assert!(summary::merge_all(&Graph::new()).unwrap().is_none());
}
