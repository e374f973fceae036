//! Reads the checkpoints TensorFlow 2.21 wrote (tests/fixtures/tf-2.21) and compares every
//! tensor with the fixture's manifest.json; rewrites them byte-identically; checks that
//! corrupted and truncated copies give errors (never panics); `latest_checkpoint` on the
//! fixtures' state files.

mod common;
use common::{fixtures, manifest};

use serde_json::Value;
use std::path::{Path, PathBuf};
use tensorgraph::format::checkpoint::{
    data_path, index_path, latest_checkpoint, mask_crc, read_checkpoint_state, write_checkpoint,
    write_checkpoint_state, CheckpointReader, CheckpointState,
};
use tensorgraph::format::proto::text::TextFormat;
use tensorgraph::tensor::{Storage, Tensor};
use tensorgraph::{Code, DType};

fn b64(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a' + 26) as u32,
            b'0'..=b'9' => (c - b'0' + 52) as u32,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("bad base64 {c}"),
        }
    };
    let clean: Vec<u8> = s.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::new();
    for chunk in clean.chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            acc |= val(c) << (18 - 6 * i);
        }
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}

fn flatten(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| flatten(x, out)),
        x => out.push(x.clone()),
    }
}

/// Flattened values; complex numbers stay [re, im] pairs.
fn flat_values(t: &Value, complex: bool) -> Vec<Value> {
    let v = &t["values"];
    if !v.is_array() {
        return vec![v.clone()];
    }
    if complex {
        let mut out = Vec::new();
        fn pairs(v: &Value, out: &mut Vec<Value>) {
            let a = v.as_array().unwrap();
            if a.len() == 2 && a[0].is_number() {
                out.push(v.clone());
            } else {
                a.iter().for_each(|x| pairs(x, out));
            }
        }
        if !v.as_array().unwrap().is_empty() {
            pairs(v, &mut out);
        }
        return out;
    }
    let mut out = Vec::new();
    flatten(v, &mut out);
    out
}

fn same_f64(a: f64, want: f64) -> bool {
    a == want && a.is_sign_negative() == want.is_sign_negative()
}

/// Compares a tensor read from a checkpoint with a manifest `{name, dtype, shape, values...}`.
fn check_tensor(name: &str, got: &Tensor, want: &Value) {
    let dtype = want["dtype"].as_str().unwrap();
    assert_eq!(got.dtype().name(), dtype, "{name}: dtype");
    let shape: Vec<usize> = want["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
    assert_eq!(got.shape(), shape.as_slice(), "{name}: shape");
    if let Some(bits) = want.get("bits_hex").and_then(Value::as_array) {
        let want_bits: Vec<u16> = bits
            .iter()
            .map(|b| u16::from_str_radix(b.as_str().unwrap().trim_start_matches("0x"), 16).unwrap())
            .collect();
        let got_bits: Vec<u16> = match got.storage() {
            Storage::F16(v) => v.iter().map(|x| x.to_bits()).collect(),
            Storage::BF16(v) => v.iter().map(|x| x.to_bits()).collect(),
            s => panic!("{name}: bits_hex for {:?}", s.dtype()),
        };
        assert_eq!(got_bits, want_bits, "{name}: bits");
    }
    match got.storage() {
        Storage::Str(v) => {
            let want: Vec<Vec<u8>> =
                want["values_b64"].as_array().unwrap().iter().map(|s| b64(s.as_str().unwrap())).collect();
            assert_eq!(v, &want, "{name}: strings");
        }
        Storage::C64(v) => {
            let w = flat_values(want, true);
            assert_eq!(v.len(), w.len(), "{name}: count");
            for (g, w) in v.iter().zip(&w) {
                assert!(same_f64(g[0] as f64, w[0].as_f64().unwrap()) && same_f64(g[1] as f64, w[1].as_f64().unwrap()));
            }
        }
        Storage::C128(v) => {
            let w = flat_values(want, true);
            assert_eq!(v.len(), w.len(), "{name}: count");
            for (g, w) in v.iter().zip(&w) {
                assert!(same_f64(g[0], w[0].as_f64().unwrap()) && same_f64(g[1], w[1].as_f64().unwrap()));
            }
        }
        Storage::Bool(v) => {
            let w: Vec<bool> = flat_values(want, false).iter().map(|x| x.as_bool().unwrap()).collect();
            assert_eq!(v, &w, "{name}");
        }
        Storage::I64(v) => {
            let w: Vec<i64> = flat_values(want, false).iter().map(|x| x.as_i64().unwrap()).collect();
            assert_eq!(v, &w, "{name}");
        }
        Storage::U64(v) => {
            let w: Vec<u64> = flat_values(want, false).iter().map(|x| x.as_u64().unwrap()).collect();
            assert_eq!(v, &w, "{name}");
        }
        _ => {
            let g = got.to_f64_vec().unwrap();
            let w: Vec<f64> = flat_values(want, false).iter().map(|x| x.as_f64().unwrap()).collect();
            assert_eq!(g.len(), w.len(), "{name}: count");
            for (i, (a, b)) in g.iter().zip(&w).enumerate() {
                assert!(same_f64(*a, *b), "{name}[{i}]: got {a}, manifest {b}");
            }
        }
    }
}

/// Opens `fixture/ckpt` and checks the listing and every tensor against `section`
/// (`{list_variables, tensors}` of the manifest).
fn check_checkpoint(fixture: &str, ckpt: &str, section: &Value) {
    let reader = CheckpointReader::open(fixtures().join(fixture).join(ckpt)).unwrap();
    let listed: Vec<(String, Vec<usize>)> = reader.list().into_iter().map(|(n, _, s)| (n, s)).collect();
    let want: Vec<(String, Vec<usize>)> = section["list_variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let shape = p[1].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
            (p[0].as_str().unwrap().to_string(), shape)
        })
        .collect();
    assert_eq!(listed, want, "{fixture}/{ckpt}: list");
    let tensors = section["tensors"].as_array().unwrap();
    assert_eq!(tensors.len(), listed.len());
    for t in tensors {
        let name = t["name"].as_str().unwrap();
        assert!(reader.contains(name));
        let got = reader.read(name).unwrap_or_else(|e| panic!("{fixture}/{ckpt}: {name}: {e}"));
        check_tensor(name, &got, t);
        let (_, dtype, shape) = reader.list().into_iter().find(|(n, _, _)| n == name).unwrap();
        assert_eq!((dtype, shape.as_slice()), (got.dtype(), got.shape()));
    }
    let err = reader.read("no/such/tensor").unwrap_err();
    assert_eq!(err.code, Code::NotFound);
    assert!(!reader.contains("") && reader.get_entry("").is_none());
}

#[test]
fn seed004() {
    check_checkpoint("seed004", "model.ckpt", &manifest("seed004")["checkpoint"]);
    let r = CheckpointReader::open(fixtures().join("seed004/model.ckpt")).unwrap();
    assert_eq!(r.read("v2").unwrap(), Tensor::new(&[1], vec![2.0f32]).unwrap());
    assert_eq!(r.header().num_shards, 1);
    assert_eq!(r.get_entry("v3").unwrap().offset, 8);
}

#[test]
fn resource_vars() {
    check_checkpoint("resource_vars", "model.ckpt", &manifest("resource_vars")["checkpoint"]);
}

#[test]
fn weight_def_adam() {
    let m = manifest("weight_def_adam");
    check_checkpoint("weight_def_adam", "full.ckpt", &m["checkpoints"]["full.ckpt"]);
    check_checkpoint("weight_def_adam", "model_only.ckpt", &m["checkpoints"]["model_only.ckpt"]);
}

#[test]
fn dtypes() {
    let m = manifest("dtypes");
    check_checkpoint("dtypes", "model.ckpt", &m["checkpoint"]);
    let r = CheckpointReader::open(fixtures().join("dtypes/model.ckpt")).unwrap();
    let dts: Vec<DType> = r.list().into_iter().map(|(_, d, _)| d).collect();
    for d in [DType::Half, DType::BFloat16, DType::String, DType::Complex64, DType::Bool, DType::UInt16] {
        assert!(dts.contains(&d), "{d} in dtypes fixture");
    }
    assert_eq!(r.read("scalar").unwrap(), Tensor::scalar(42.5f32));
    assert_eq!(r.read("empty").unwrap().shape(), &[0, 3]);
}

#[test]
fn mlp() {
    let m = manifest("mlp");
    check_checkpoint("mlp", "model.ckpt", &m["checkpoints"]["model.ckpt"]);
    check_checkpoint("mlp", "init.ckpt", &m["checkpoints"]["init.ckpt"]);
}

/// Reads every listed tensor (sorted by name, the order tf.train.Saver saves in), writes them
/// with `write_checkpoint` and compares both files with TensorFlow's bytes.
fn rewrite_identical(fixture: &str, ckpt: &str) {
    let prefix = fixtures().join(fixture).join(ckpt);
    let reader = CheckpointReader::open(&prefix).unwrap();
    let tensors: Vec<(String, Tensor)> =
        reader.list().into_iter().map(|(n, _, _)| (n.clone(), reader.read(&n).unwrap())).collect();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sub/dir").join(ckpt);
    write_checkpoint(&out, &tensors).unwrap();
    assert_eq!(std::fs::read(data_path(&out, 0, 1)).unwrap(), std::fs::read(data_path(&prefix, 0, 1)).unwrap());
    assert_eq!(
        std::fs::read(index_path(&out)).unwrap(),
        std::fs::read(index_path(&prefix)).unwrap(),
        "{fixture}/{ckpt}: index differs"
    );
    let names: Vec<_> = std::fs::read_dir(out.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "no temporary files left: {names:?}");
}

#[test]
fn seed004_rewrite_is_byte_identical() {
    rewrite_identical("seed004", "model.ckpt");
}

#[test]
fn all_fixtures_rewrite_byte_identical() {
    rewrite_identical("resource_vars", "model.ckpt");
    rewrite_identical("dtypes", "model.ckpt");
    rewrite_identical("weight_def_adam", "full.ckpt");
    rewrite_identical("weight_def_adam", "model_only.ckpt");
    rewrite_identical("mlp", "model.ckpt");
    rewrite_identical("mlp", "init.ckpt");
}

/// Copies a fixture checkpoint into a temporary directory.
fn copy_ckpt(fixture: &str, dir: &Path) -> PathBuf {
    let src = fixtures().join(fixture).join("model.ckpt");
    let dst = dir.join("model.ckpt");
    std::fs::copy(index_path(&src), index_path(&dst)).unwrap();
    std::fs::copy(data_path(&src, 0, 1), data_path(&dst, 0, 1)).unwrap();
    dst
}

/// Opens and reads every tensor; the first error, if any.
fn read_all(prefix: &Path) -> Result<(), tensorgraph::Error> {
    let r = CheckpointReader::open(prefix)?;
    for (n, _, _) in r.list() {
        r.read(&n)?;
    }
    Ok(())
}

#[test]
fn corrupted_index_bytes_are_detected() {
    for fixture in ["seed004", "dtypes"] {
        let dir = tempfile::tempdir().unwrap();
        let prefix = copy_ckpt(fixture, dir.path());
        let original = std::fs::read(index_path(&prefix)).unwrap();
        let footer_start = original.len() - 48;
        for i in 0..original.len() {
            for flip in [0x01u8, 0xff] {
                let mut bytes = original.clone();
                bytes[i] ^= flip;
                std::fs::write(index_path(&prefix), &bytes).unwrap();
                let res = read_all(&prefix);
                if i < footer_start || i >= original.len() - 8 {
                    let e = res.expect_err(&format!("{fixture}: flipped index byte {i} not detected"));
                    assert_eq!(e.code, Code::DataLoss, "{e}");
                    assert!(e.message.contains("model.ckpt.index"), "{e}");
                }
            }
        }
    }
}

#[test]
fn truncated_index_is_detected() {
    for fixture in ["seed004", "dtypes"] {
        let dir = tempfile::tempdir().unwrap();
        let prefix = copy_ckpt(fixture, dir.path());
        let original = std::fs::read(index_path(&prefix)).unwrap();
        for cut in 0..original.len() {
            std::fs::write(index_path(&prefix), &original[..cut]).unwrap();
            let e = CheckpointReader::open(&prefix).expect_err("truncated index must not open");
            assert_eq!(e.code, Code::DataLoss, "cut at {cut}: {e}");
            assert!(e.message.contains("model.ckpt.index"), "{e}");
        }
    }
}

#[test]
fn corrupted_data_bytes_are_detected() {
    for fixture in ["seed004", "dtypes"] {
        let dir = tempfile::tempdir().unwrap();
        let prefix = copy_ckpt(fixture, dir.path());
        let data = data_path(&prefix, 0, 1);
        let original = std::fs::read(&data).unwrap();
        for i in 0..original.len() {
            let mut bytes = original.clone();
            bytes[i] ^= 0x10;
            std::fs::write(&data, &bytes).unwrap();
            let e = read_all(&prefix).expect_err(&format!("{fixture}: flipped data byte {i} not detected"));
            assert_eq!(e.code, Code::DataLoss, "{e}");
            assert!(e.message.contains("model.ckpt.data-00000-of-00001"), "{e}");
        }
        for cut in [0, 1, original.len() / 2, original.len() - 1] {
            std::fs::write(&data, &original[..cut]).unwrap();
            let e = read_all(&prefix).expect_err("truncated data must fail");
            assert_eq!(e.code, Code::DataLoss, "{e}");
            assert!(e.message.contains("model.ckpt.data-00000-of-00001"), "{e}");
        }
        std::fs::remove_file(&data).unwrap();
        assert_eq!(read_all(&prefix).unwrap_err().code, Code::NotFound);
        std::fs::remove_file(index_path(&prefix)).unwrap();
        assert_eq!(CheckpointReader::open(&prefix).unwrap_err().code, Code::NotFound);
    }
}

/// Mutates bytes inside seed004's data block and re-seals the block checksum, so the
/// mutations reach the block and entry parsers: any result but a panic is fine.
#[test]
fn resealed_garbage_in_data_block_does_not_panic() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = copy_ckpt("seed004", dir.path());
    let original = std::fs::read(index_path(&prefix)).unwrap();
    let block_len = 79; // data block [0, 79), trailer [79, 84) (formats.md worked example)
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..1000 {
        let mut bytes = original.clone();
        let n = 1 + (round % 4);
        for _ in 0..n {
            let i = (next() % block_len as u64) as usize;
            bytes[i] = next() as u8;
        }
        let crc = mask_crc(crc32c::crc32c(&bytes[..block_len + 1]));
        bytes[block_len + 1..block_len + 5].copy_from_slice(&crc.to_le_bytes());
        std::fs::write(index_path(&prefix), &bytes).unwrap();
        let _ = read_all(&prefix);
    }
}

#[test]
fn latest_checkpoint_of_fixtures() {
    for (fixture, newest, all) in [
        ("seed004", "model.ckpt", vec!["model.ckpt"]),
        ("resource_vars", "model.ckpt", vec!["model.ckpt"]),
        ("dtypes", "model.ckpt", vec!["model.ckpt"]),
        ("weight_def_adam", "model_only.ckpt", vec!["model_only.ckpt"]),
        ("mlp", "model.ckpt", vec!["init.ckpt", "model.ckpt"]),
    ] {
        let dir = fixtures().join(fixture);
        assert_eq!(latest_checkpoint(&dir).unwrap(), Some(dir.join(newest)), "{fixture}");
        let st = read_checkpoint_state(&dir).unwrap().unwrap();
        assert_eq!(st.model_checkpoint_path, dir.join(newest).to_str().unwrap());
        let want: Vec<String> = all.iter().map(|p| dir.join(p).to_str().unwrap().to_string()).collect();
        assert_eq!(st.all_model_checkpoint_paths, want);
        // The raw text parses and re-serializes to TensorFlow's exact bytes.
        let text = std::fs::read_to_string(dir.join("checkpoint")).unwrap();
        assert_eq!(text, manifest(fixture)["checkpoint_state_file"].as_str().unwrap());
        assert_eq!(CheckpointState::from_text(&text).unwrap().to_text().unwrap(), text);
        // Writing the resolved state back into that directory gives relative paths again.
        let tmp = tempfile::tempdir().unwrap();
        let moved = CheckpointState {
            model_checkpoint_path: tmp.path().join(newest).to_str().unwrap().into(),
            all_model_checkpoint_paths: all.iter().map(|p| tmp.path().join(p).to_str().unwrap().into()).collect(),
            ..Default::default()
        };
        write_checkpoint_state(tmp.path(), &moved).unwrap();
        assert_eq!(std::fs::read_to_string(tmp.path().join("checkpoint")).unwrap(), text);
    }
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(latest_checkpoint(empty.path()).unwrap(), None);
}
