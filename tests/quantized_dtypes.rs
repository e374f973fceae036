//! The quantized dtypes (qint8, quint8, qint16, quint16, qint32; `DT_QINT8` = 11 ...) in
//! every place a dtype goes: a V2 checkpoint TensorFlow 2.21's `SaveV2` wrote
//! (`tests/data/quantize/ckpt`, by `scripts/gen_quantize.py`) reads here and writes back
//! byte for byte; `TensorProto` (TensorFlow's `int_val` for one value, `tensor_content` for
//! more); `.npy` (as the plain integers, numpy having no quantized dtypes); feeds of plain
//! integers to a quantized placeholder, and fetches.

mod common;
use common::repo_root;
use prost::Message;
use tensorgraph::format::checkpoint::{write_checkpoint, CheckpointReader};
use tensorgraph::format::proto::TensorProto;
use tensorgraph::tensor::{QInt16, QInt32, QInt8, QUInt16, QUInt8};
use tensorgraph::{ops, Code, DType, Graph, Session, Shape, Tensor};

#[test]
fn dtype_numbers_and_names_are_tensorflows() {
    for (d, n, name) in [
        (DType::QInt8, 11, "qint8"),
        (DType::QUInt8, 12, "quint8"),
        (DType::QInt32, 13, "qint32"),
        (DType::QInt16, 15, "qint16"),
        (DType::QUInt16, 16, "quint16"),
    ] {
        assert_eq!(d.as_enum(), n);
        assert_eq!(DType::from_enum(n).unwrap(), d);
        assert_eq!(DType::from_enum(n + 100).unwrap(), d, "the _REF type");
        assert_eq!(d.name(), name);
        assert!(d.is_quantized() && !d.is_integer() && !d.is_floating(), "{d}");
        assert!(DType::ALL.contains(&d));
    }
    assert_eq!(DType::QInt16.size(), Some(2));
    assert_eq!(DType::QInt32.plain_integer(), DType::Int32);
    assert_eq!(DType::Float.plain_integer(), DType::Float);
}

#[test]
fn tensorflow_checkpoint_with_quantized_tensors_reads_and_writes_back_identically() {
    let dir = repo_root().join("tests/data/quantize");
    let r = CheckpointReader::open(dir.join("ckpt")).unwrap();
    let listed = r.list();
    assert_eq!(listed.len(), 5);
    let want = [
        ("v_qint8", Tensor::new(&[2, 2], vec![QInt8(-128), QInt8(5), QInt8(7), QInt8(127)]).unwrap()),
        ("v_qint16", Tensor::new(&[3], vec![QInt16(-32768), QInt16(1), QInt16(32767)]).unwrap()),
        ("v_qint32", Tensor::new(&[4], vec![QInt32(i32::MIN), QInt32(0), QInt32(i32::MAX), QInt32(42)]).unwrap()),
        ("v_quint16", Tensor::new(&[1], vec![QUInt16(65535)]).unwrap()),
        ("v_quint8", Tensor::new(&[3], vec![QUInt8(0), QUInt8(9), QUInt8(255)]).unwrap()),
    ];
    for (name, t) in &want {
        let got = r.read(name).unwrap();
        assert_eq!(&got, t, "{name}");
        assert!(listed.iter().any(|(n, d, s)| n == name && *d == t.dtype() && s == t.shape()), "{name}");
    }
    // the same tensors written here, in SaveV2's order, give TensorFlow's files byte for byte
    let tmp = tempfile::tempdir().unwrap();
    let named: Vec<(String, Tensor)> =
        [0, 4, 1, 3, 2].iter().map(|&i| (want[i].0.to_string(), want[i].1.clone())).collect();
    write_checkpoint(tmp.path().join("ckpt"), &named).unwrap();
    for f in ["ckpt.index", "ckpt.data-00000-of-00001"] {
        assert_eq!(std::fs::read(tmp.path().join(f)).unwrap(), std::fs::read(dir.join(f)).unwrap(), "{f}");
    }
}

#[test]
fn tensor_protos_hold_quantized_values_as_tensorflow_writes_them() {
    // make_tensor_proto(np.array(5).astype(tf.qint8.as_numpy_dtype), tf.qint8): int_val [5]
    let p = TensorProto::from_tensor(&Tensor::scalar(QInt8(5)));
    assert_eq!((p.dtype, p.int_val.clone(), p.tensor_content.is_empty()), (11, vec![5], true));
    // ... of [1, 2, 3] as qint16: tensor_content 01 00 02 00 03 00
    let p = TensorProto::from_tensor(&Tensor::vector(vec![QInt16(1), QInt16(2), QInt16(3)]));
    assert_eq!((p.dtype, p.tensor_content.to_vec()), (15, vec![1, 0, 2, 0, 3, 0]));
    for t in [
        Tensor::vector(vec![QUInt8(200), QUInt8(3)]),
        Tensor::scalar(QUInt16(65535)),
        Tensor::vector(vec![QInt32(-7), QInt32(i32::MAX)]),
        Tensor::scalar(QInt32(i32::MIN)),
    ] {
        let back = TensorProto::decode(TensorProto::from_tensor(&t).encode_to_vec().as_slice()).unwrap();
        assert_eq!(back.to_tensor().unwrap(), t);
    }
    // int_val is cast to the type's width, as TensorFlow's
    let p = TensorProto { dtype: 12, int_val: vec![300], ..Default::default() };
    assert_eq!(p.to_tensor().unwrap(), Tensor::scalar(QUInt8(44)));
}

#[test]
fn npy_files_hold_the_plain_integers() {
    let t = Tensor::new(&[2], vec![QInt8(-3), QInt8(4)]).unwrap();
    let bytes = t.to_npy_bytes().unwrap();
    assert!(String::from_utf8_lossy(&bytes).contains("'descr': '|i1'"));
    let back = Tensor::from_npy_bytes(&bytes).unwrap();
    assert_eq!(back, Tensor::new(&[2], vec![-3i8, 4]).unwrap());
    assert_eq!(back.convert(DType::QInt8).unwrap(), t);
}

#[test]
fn quantized_placeholders_take_integer_feeds_and_fetch_as_quantized() {
    let g = Graph::new();
    let s = g.scope();
    let p = ops::placeholder(&s, DType::QUInt8, Shape::known(&[3])).unwrap();
    let y = ops::identity(&s, &p).unwrap();
    let sess = Session::new(&g).unwrap();
    // np.asarray([1, 2, 255], dtype=quint8) as TensorFlow's feed_dict does
    let got = sess.fetch(&[(&p, Tensor::vector(vec![1i32, 2, 255]))], &y).unwrap();
    assert_eq!(got, Tensor::vector(vec![QUInt8(1), QUInt8(2), QUInt8(255)]));
    let e = sess.fetch(&[(&p, Tensor::vector(vec![1i32, 2, 256]))], &y).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("value 256 at [2] does not fit in quint8"), "{e}");
    let e = sess.fetch(&[(&p, Tensor::vector(vec![1f32, 2.0, 3.0]))], &y).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    // the summary TensorFlow's Print would show
    assert_eq!(got.summarize_value(3), "1 2 255");
}
