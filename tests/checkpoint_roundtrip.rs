//! Writes checkpoints with `write_checkpoint` / `CheckpointWriter` and reads them back with
//! `CheckpointReader`: every dtype, scalars, empty tensors, strings, partitioned tensors,
//! multi-block indexes, hostile entries, atomic replacement and the `checkpoint` state file.

use half::{bf16, f16};
use prost::Message;
use std::path::Path;
use tensorgraph::format::checkpoint::bundle_proto::{
    BundleEntryProto, BundleHeaderProto, Extent, HasLength, TensorShapeProto, TensorSliceProto, VersionDef,
};
use tensorgraph::format::checkpoint::table::{build_table, TableOptions};
use tensorgraph::format::checkpoint::{
    data_path, index_path, latest_checkpoint, read_checkpoint_state, slice_key, write_checkpoint,
    write_checkpoint_state, CheckpointReader, CheckpointState, CheckpointWriter,
};
use tensorgraph::tensor::{QInt16, QInt32, QInt8, QUInt16, QUInt8, Storage, Tensor};
use tensorgraph::{Code, DType};

fn all_dtypes() -> Vec<(String, Tensor)> {
    let t = |name: &str, shape: &[usize], s: Storage| (name.to_string(), Tensor::from_storage(shape, s).unwrap());
    vec![
        t("f32", &[2, 3], Storage::F32(vec![1.5, -2.25, 0.1, 3e38, f32::from_bits(1), -0.0])),
        t("f64", &[3], Storage::F64(vec![std::f64::consts::PI, -1e300, 5e-324])),
        t("i32", &[3], Storage::I32(vec![i32::MIN, i32::MAX, 7])),
        t("i64", &[3], Storage::I64(vec![i64::MIN, i64::MAX, 42])),
        t("bool", &[3], Storage::Bool(vec![true, false, true])),
        t("i8", &[4], Storage::I8(vec![-128, 127, 0, -1])),
        t("i16", &[3], Storage::I16(vec![-32768, 32767, 1])),
        t("u8", &[3], Storage::U8(vec![0, 255, 128])),
        t("u16", &[3], Storage::U16(vec![0, 65535, 4660])),
        t("u32", &[2], Storage::U32(vec![0, u32::MAX])),
        t("u64", &[2], Storage::U64(vec![0, u64::MAX])),
        t("f16", &[5], Storage::F16([0x3e00u16, 0xb400, 0x7bff, 0x0001, 0].map(f16::from_bits).to_vec())),
        t("bf16", &[4], Storage::BF16([0x3f80u16, 0xc020, 0x4049, 0x714a].map(bf16::from_bits).to_vec())),
        t("c64", &[3], Storage::C64(vec![[1.0, 2.0], [-3.5, -0.5], [0.0, 0.0]])),
        t("c128", &[2], Storage::C128(vec![[1e300, -2.0], [0.5, 5e-324]])),
        t(
            "str",
            &[2, 3],
            Storage::Str(vec![
                b"hello".to_vec(),
                vec![],
                vec![b'x'; 300],
                "h\u{e9}llo \u{2603}".as_bytes().to_vec(),
                vec![0, 0xff, 1, b'b', b'i', b'n'],
                vec![7; 70000],
            ]),
        ),
        t("qi8", &[3], Storage::QI8(vec![QInt8(-128), QInt8(0), QInt8(127)])),
        t("qu8", &[2], Storage::QU8(vec![QUInt8(0), QUInt8(255)])),
        t("qi16", &[2], Storage::QI16(vec![QInt16(-32768), QInt16(4660)])),
        t("qu16", &[1], Storage::QU16(vec![QUInt16(65535)])),
        t("qi32", &[2], Storage::QI32(vec![QInt32(i32::MIN), QInt32(7)])),
        t("str_scalar", &[], Storage::Str(vec![b"on-cpu0".to_vec()])),
        t("str_one_empty", &[1], Storage::Str(vec![vec![]])),
        t("str_empty", &[0, 2], Storage::Str(vec![])),
        t("scalar", &[], Storage::F32(vec![42.5])),
        t("empty", &[0, 3], Storage::F32(vec![])),
        t("empty_i64", &[2, 0], Storage::I64(vec![])),
        t("scope/nested/name", &[1, 1, 1], Storage::F64(vec![1.0])),
    ]
}

#[test]
fn every_dtype_roundtrips() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("model.ckpt-7");
    let tensors = all_dtypes();
    write_checkpoint(&prefix, &tensors).unwrap();
    let r = CheckpointReader::open(&prefix).unwrap();
    let mut want: Vec<(String, DType, Vec<usize>)> =
        tensors.iter().map(|(n, t)| (n.clone(), t.dtype(), t.shape().to_vec())).collect();
    want.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(r.list(), want);
    for (name, t) in &tensors {
        let got = r.read(name).unwrap();
        assert_eq!(got.dtype(), t.dtype(), "{name}");
        assert_eq!(got.shape(), t.shape(), "{name}");
        // Compare bit patterns so -0.0 and subnormals are checked exactly.
        let bits = |s: &Storage| -> Vec<u64> {
            match s {
                Storage::F32(v) => v.iter().map(|x| x.to_bits() as u64).collect(),
                Storage::F64(v) => v.iter().map(|x| x.to_bits()).collect(),
                _ => Vec::new(),
            }
        };
        assert_eq!(bits(got.storage()), bits(t.storage()), "{name}");
        assert_eq!(&got, t, "{name}");
    }
    // Every dtype tensorgraph knows is covered.
    for d in DType::ALL {
        assert!(tensors.iter().any(|(_, t)| t.dtype() == d), "{d} not covered");
    }
    // Data are stored back to back in the order given, no padding.
    let mut end = 0;
    for (name, _) in &tensors {
        let e = r.get_entry(name).unwrap();
        assert_eq!(e.offset, end, "{name}");
        end += e.size;
    }
    assert_eq!(std::fs::metadata(data_path(&prefix, 0, 1)).unwrap().len(), end as u64);
    // Empty tensors: no size, crc = mask(0); empty string tensor still stores mask(0).
    assert_eq!(r.get_entry("empty").unwrap().crc32c, 0xA282_EAD8);
    assert_eq!(r.get_entry("str_empty").unwrap().size, 4);
    assert_eq!(r.get_entry("str_one_empty").unwrap().size, 5);
    assert_eq!(r.get_entry("str_scalar").unwrap().crc32c, 0x54c5_6abd);
}

#[test]
fn many_keys_span_several_index_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let tensors: Vec<(String, Tensor)> =
        (0..20_000).map(|i| (format!("layer{i:05}/kernel"), Tensor::new(&[1], vec![i]).unwrap())).collect();
    let prefix = dir.path().join("big");
    write_checkpoint(&prefix, &tensors).unwrap();
    assert!(std::fs::metadata(index_path(&prefix)).unwrap().len() > 2 * 262_144);
    let r = CheckpointReader::open(&prefix).unwrap();
    assert_eq!(r.list().len(), tensors.len());
    for i in [0, 1, 4567, 19_999] {
        assert_eq!(r.read(&format!("layer{i:05}/kernel")).unwrap().to_vec::<i32>().unwrap(), vec![i]);
    }
    // Small blocks and another restart interval read back the same.
    let small = dir.path().join("small");
    let mut w =
        CheckpointWriter::new(&small).unwrap().with_table_options(TableOptions { block_size: 64, restart_interval: 3 });
    for (n, t) in tensors.iter().take(500) {
        w.add(n, t).unwrap();
    }
    w.finish().unwrap();
    let r = CheckpointReader::open(&small).unwrap();
    assert_eq!(r.list().len(), 500);
    assert_eq!(r.read("layer00321/kernel").unwrap().to_vec::<i32>().unwrap(), vec![321]);
}

#[test]
fn big_tensor_roundtrips() {
    let dir = tempfile::tempdir().unwrap();
    let v: Vec<f32> = (0..300_000).map(|i| i as f32 * 0.5).collect();
    let t = Tensor::new(&[600, 500], v).unwrap();
    let prefix = dir.path().join("big");
    write_checkpoint(&prefix, &[("w".to_string(), t.clone())]).unwrap();
    assert_eq!(CheckpointReader::open(&prefix).unwrap().read("w").unwrap(), t);
}

#[test]
fn partitioned_tensor_is_assembled() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("part");
    let full: Vec<f32> = (0..30).map(|i| i as f32).collect();
    let mut w = CheckpointWriter::new(&prefix).unwrap();
    w.add("a", &Tensor::scalar(1i64)).unwrap();
    for (start, n) in [(0usize, 4usize), (4, 3), (7, 3)] {
        let rows = Tensor::new(&[n, 3], full[start * 3..(start + n) * 3].to_vec()).unwrap();
        w.add_slice("part", &[10, 3], &[(start, n), (0, 3)], &rows).unwrap();
    }
    // Column slices of a string tensor.
    let s: Vec<Vec<u8>> = (0..6).map(|i| format!("s{i}").into_bytes()).collect();
    for c in 0..3 {
        let col = vec![s[c].clone(), s[3 + c].clone()];
        w.add_slice("strs", &[2, 3], &[(0, 2), (c, 1)], &Tensor::strings(&[2, 1], col).unwrap()).unwrap();
    }
    // A slice covering everything is stored as a plain tensor.
    w.add_slice("whole", &[2], &[(0, 2)], &Tensor::new(&[2], vec![5u8, 6]).unwrap()).unwrap();
    let e = w.add_slice("part", &[10, 3], &[(0, 4), (0, 3)], &Tensor::zeros(DType::Float, &[4, 3])).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    let e = w.add_slice("part", &[10, 4], &[(0, 1), (0, 4)], &Tensor::zeros(DType::Float, &[1, 4])).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    let e = w.add_slice("a", &[10, 3], &[(0, 1), (0, 3)], &Tensor::zeros(DType::Float, &[1, 3])).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    let e = w.add_slice("x", &[10, 3], &[(8, 3), (0, 3)], &Tensor::zeros(DType::Float, &[3, 3])).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    w.finish().unwrap();

    let r = CheckpointReader::open(&prefix).unwrap();
    assert_eq!(
        r.list(),
        vec![
            ("a".to_string(), DType::Int64, vec![]),
            ("part".to_string(), DType::Float, vec![10, 3]),
            ("strs".to_string(), DType::String, vec![2, 3]),
            ("whole".to_string(), DType::UInt8, vec![2]),
        ]
    );
    assert_eq!(r.read("part").unwrap(), Tensor::new(&[10, 3], full).unwrap());
    assert_eq!(r.read("strs").unwrap(), Tensor::strings(&[2, 3], s).unwrap());
    let entry = r.get_entry("part").unwrap();
    assert_eq!((entry.size, entry.slices.len()), (0, 3));
    // The slice entries live under TensorFlow's OrderedCode keys (formats.md §1.8 example).
    assert_eq!(slice_key(b"part", &[(4, 3), (0, 3)]), b"\x00part\x00\x01\x01\x02\x84\x83\x80\x83");
}

#[test]
fn uncovered_or_missing_slices_are_data_loss() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("broken");
    let mut w = CheckpointWriter::new(&prefix).unwrap();
    w.add_slice("p", &[4], &[(0, 2)], &Tensor::new(&[2], vec![1f32, 2.0]).unwrap()).unwrap();
    w.finish().unwrap();
    let r = CheckpointReader::open(&prefix).unwrap();
    let e = r.read("p").unwrap_err();
    assert_eq!(e.code, Code::DataLoss, "{e}");
    assert!(e.message.contains("cover"), "{e}");
    // A full entry naming a slice whose entry is absent.
    let mut full = entry(DType::Float, &[4], 0, 0);
    full.slices.push(TensorSliceProto { extent: vec![Extent { start: 2, has_length: Some(HasLength::Length(2)) }] });
    write_raw(&prefix, vec![("p", full)], &[]);
    let r = CheckpointReader::open(&prefix).unwrap();
    // (listed as an entry that cannot be decoded, never silently left out)
    assert!(r.list().is_empty());
    assert_eq!(r.problems().iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["p"]);
    let e = r.read("p").unwrap_err();
    assert_eq!(e.code, Code::DataLoss, "{e}");
    assert!(e.message.contains("missing"), "{e}");
}

/// Writes an index with hand-made entries (and an optional data file).
fn write_raw(prefix: &Path, entries: Vec<(&str, BundleEntryProto)>, data: &[u8]) {
    let header = BundleHeaderProto {
        num_shards: 1,
        endianness: 0,
        version: Some(VersionDef { producer: 1, ..Default::default() }),
    };
    let mut kvs = vec![(Vec::new(), header.encode_to_vec())];
    let mut entries = entries;
    entries.sort_by(|a, b| a.0.cmp(b.0));
    kvs.extend(entries.into_iter().map(|(k, e)| (k.as_bytes().to_vec(), e.encode_to_vec())));
    std::fs::write(index_path(prefix), build_table(&kvs, TableOptions::default()).unwrap()).unwrap();
    std::fs::write(data_path(prefix, 0, 1), data).unwrap();
}

fn entry(dtype: DType, dims: &[usize], offset: i64, size: i64) -> BundleEntryProto {
    BundleEntryProto {
        dtype: dtype.as_enum(),
        shape: Some(TensorShapeProto::from_dims(dims)),
        offset,
        size,
        ..Default::default()
    }
}

#[test]
fn hostile_entries_fail_without_huge_allocations() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("hostile");
    let huge = 1usize << 40;
    let mut neg = entry(DType::Float, &[1], 0, 4);
    neg.shape.as_mut().unwrap().dim[0].size = -5;
    write_raw(
        &prefix,
        vec![
            ("size_mismatch", entry(DType::Float, &[huge, huge], 0, 4)),
            ("overflow", entry(DType::Float, &[usize::MAX / 2, 4], 0, 4)),
            ("beyond_file", entry(DType::Float, &[huge], 0, 4 * huge as i64)),
            ("strings_beyond_file", entry(DType::String, &[huge], 0, 2 * huge as i64)),
            ("strings_too_small", entry(DType::String, &[huge], 0, 5)),
            ("neg_offset", entry(DType::Float, &[1], -4, 4)),
            ("bad_offset", entry(DType::Float, &[1], i64::MAX, 4)),
            ("bad_shard", BundleEntryProto { shard_id: 3, ..entry(DType::Float, &[1], 0, 4) }),
            ("bad_crc", BundleEntryProto { crc32c: 1, ..entry(DType::Float, &[1], 0, 4) }),
        ],
        &[0, 0, 0x80, 0x3f],
    );
    let r = CheckpointReader::open(&prefix).unwrap();
    for name in [
        "size_mismatch",
        "overflow",
        "beyond_file",
        "strings_beyond_file",
        "strings_too_small",
        "neg_offset",
        "bad_offset",
        "bad_shard",
        "bad_crc",
    ] {
        let e = r.read(name).unwrap_err();
        assert_eq!(e.code, Code::DataLoss, "{name}: {e}");
        assert!(e.message.contains(name), "{name}: {e}");
    }
    assert!(r.read("bad_crc").unwrap_err().message.contains("hostile.data-00000-of-00001"));
    // An entry with a negative dimension makes the index itself invalid.
    write_raw(&prefix, vec![("neg", neg)], &[]);
    let e = CheckpointReader::open(&prefix).unwrap_err();
    assert_eq!(e.code, Code::DataLoss, "{e}");
    // A dtype tensorgraph lacks (DT_FLOAT8_E5M2 = 24) is unlisted and Unimplemented on read.
    write_raw(&prefix, vec![("q", BundleEntryProto { dtype: 24, ..entry(DType::Int8, &[1], 0, 1) })], &[1]);
    let r = CheckpointReader::open(&prefix).unwrap();
    assert!(r.list().is_empty() && r.contains("q"));
    assert_eq!(r.read("q").unwrap_err().code, Code::Unimplemented);
}

#[test]
fn writing_replaces_atomically_and_rejects_bad_names() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("ckpt");
    write_checkpoint(&prefix, &[("a".into(), Tensor::scalar(1f32))]).unwrap();
    write_checkpoint(&prefix, &[("b".into(), Tensor::scalar(2f32))]).unwrap();
    let r = CheckpointReader::open(&prefix).unwrap();
    assert_eq!(r.list(), vec![("b".to_string(), DType::Float, vec![])]);
    // A failed write leaves the previous checkpoint and no temporary files.
    let dup = [("x".to_string(), Tensor::scalar(1f32)), ("x".to_string(), Tensor::scalar(2f32))];
    assert_eq!(write_checkpoint(&prefix, &dup).unwrap_err().code, Code::InvalidArgument);
    assert_eq!(
        write_checkpoint(&prefix, &[(String::new(), Tensor::scalar(1f32))]).unwrap_err().code,
        Code::InvalidArgument
    );
    let names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert_eq!(CheckpointReader::open(&prefix).unwrap().read("b").unwrap(), Tensor::scalar(2f32));
}

#[test]
fn checkpoint_state_roundtrip_and_latest() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert_eq!(read_checkpoint_state(d).unwrap(), None);
    assert_eq!(latest_checkpoint(d).unwrap(), None);
    for step in 1..=2 {
        write_checkpoint(d.join(format!("model.ckpt-{step}")), &[("v".into(), Tensor::scalar(step as f32))]).unwrap();
    }
    let st = CheckpointState {
        model_checkpoint_path: d.join("model.ckpt-2").to_string_lossy().into(),
        all_model_checkpoint_paths: vec![
            d.join("model.ckpt-1").to_string_lossy().into(),
            d.join("model.ckpt-2").to_string_lossy().into(),
        ],
        all_model_checkpoint_timestamps: vec![1700000000.25, 1700000100.125],
        last_preserved_timestamp: 1699999999.5,
    };
    write_checkpoint_state(d, &st).unwrap();
    assert_eq!(
        std::fs::read_to_string(d.join("checkpoint")).unwrap(),
        "model_checkpoint_path: \"model.ckpt-2\"\nall_model_checkpoint_paths: \"model.ckpt-1\"\n\
         all_model_checkpoint_paths: \"model.ckpt-2\"\nall_model_checkpoint_timestamps: 1700000000.25\n\
         all_model_checkpoint_timestamps: 1700000100.125\nlast_preserved_timestamp: 1699999999.5\n"
    );
    assert_eq!(read_checkpoint_state(d).unwrap().unwrap(), st);
    let latest = latest_checkpoint(d).unwrap().unwrap();
    assert_eq!(latest, d.join("model.ckpt-2"));
    assert_eq!(CheckpointReader::open(&latest).unwrap().read("v").unwrap(), Tensor::scalar(2f32));
    // Paths outside the directory are kept as given (absolute).
    let other = tempfile::tempdir().unwrap();
    let outside = other.path().join("x.ckpt").to_string_lossy().into_owned();
    let st2 = CheckpointState {
        model_checkpoint_path: outside.clone(),
        all_model_checkpoint_paths: vec![outside.clone()],
        ..Default::default()
    };
    write_checkpoint_state(d, &st2).unwrap();
    assert!(std::fs::read_to_string(d.join("checkpoint")).unwrap().contains(&outside));
    // x.ckpt.index does not exist, nor does d/x.ckpt: an error naming the stale path
    let e = latest_checkpoint(d).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert!(e.message.contains(&outside), "{e}");
    write_checkpoint(&outside, &[]).unwrap();
    assert_eq!(latest_checkpoint(d).unwrap(), Some(other.path().join("x.ckpt")));
    // Malformed state files are errors naming the file.
    std::fs::write(d.join("checkpoint"), "model_checkpoint_path: \"unterminated\n").unwrap();
    let e = read_checkpoint_state(d).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("checkpoint"), "{e}");
    std::fs::write(d.join("checkpoint"), "all_model_checkpoint_paths: \"a\"\n").unwrap();
    assert_eq!(latest_checkpoint(d).unwrap_err().code, Code::InvalidArgument);
    assert_eq!(write_checkpoint_state(d, &CheckpointState::default()).unwrap_err().code, Code::InvalidArgument);
}

#[test]
fn sharded_bundle_is_read_from_each_data_file() {
    // Two shards as MergeV2Checkpoints leaves them: shard k's tensors at offsets in its own file.
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("sharded");
    let a = 1.5f32.to_le_bytes();
    let b: Vec<u8> = [7i64, -8].iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut ea = entry(DType::Float, &[], 0, 4);
    ea.crc32c = tensorgraph::format::checkpoint::mask_crc(crc32c::crc32c(&a));
    let mut eb = entry(DType::Int64, &[2], 0, 16);
    eb.shard_id = 1;
    eb.crc32c = tensorgraph::format::checkpoint::mask_crc(crc32c::crc32c(&b));
    let header = BundleHeaderProto {
        num_shards: 2,
        endianness: 0,
        version: Some(VersionDef { producer: 1, ..Default::default() }),
    };
    let kvs = vec![
        (Vec::new(), header.encode_to_vec()),
        (b"a".to_vec(), ea.encode_to_vec()),
        (b"b".to_vec(), eb.encode_to_vec()),
    ];
    std::fs::write(index_path(&prefix), build_table(&kvs, TableOptions::default()).unwrap()).unwrap();
    std::fs::write(data_path(&prefix, 0, 2), a).unwrap();
    std::fs::write(data_path(&prefix, 1, 2), &b).unwrap();
    let r = CheckpointReader::open(&prefix).unwrap();
    assert_eq!(r.read("a").unwrap(), Tensor::scalar(1.5f32));
    assert_eq!(r.read("b").unwrap(), Tensor::new(&[2], vec![7i64, -8]).unwrap());
    std::fs::remove_file(data_path(&prefix, 1, 2)).unwrap();
    let r = CheckpointReader::open(&prefix).unwrap();
    let e = r.read("b").unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert!(e.message.contains("sharded.data-00001-of-00002"), "{e}");
}
