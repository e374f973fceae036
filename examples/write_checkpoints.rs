//! Writes checkpoints covering what tensorgraph can write, for real TensorFlow to read back
//! (`interop/check_checkpoints.py`).
//!
//! ```sh
//! cargo run --release --example write_checkpoints -- DIR
//! ```
//!
//! Into `DIR` (created if needed):
//! * `all_dtypes/model.ckpt`: one tensor per dtype (float16, bfloat16, float32, float64,
//!   int8/16/32/64, uint8/16/32/64, bool, complex64/128, string with empty, non-UTF-8 and long
//!   strings), with special values (±0, ±inf, NaNs with payloads, subnormals, extremes),
//!   0-d scalars and empty tensors;
//! * `partitioned/model.ckpt`: partitioned variables written slice by slice with
//!   `CheckpointWriter::add_slice`, as `tf.compat.v1.fixed_size_partitioner` splits them;
//! * `steps/model.ckpt-200` .. `steps/model.ckpt-1000`: five `Saver::save_with_step` saves of
//!   a small graph, with the `checkpoint` state file;
//! * `keep2/model.ckpt-3`, `keep2/model.ckpt-4`: four saves with `max_to_keep(2)` (the older
//!   two deleted);
//! * `manifest.json`: every checkpoint's tensors (name, dtype, shape, exact values), the
//!   partitioning, and for each directory the state file as tensorgraph reads it and
//!   tensorgraph's `latest_checkpoint` (all paths relative to `DIR`).
//!
//! Exact values in the manifest: `"encoding": "bits"` gives the IEEE bit patterns of float
//! and complex elements as unsigned integers (complex: real and imaginary interleaved),
//! `"int"` integers, `"bool"` booleans, `"hex"` the bytes of each string in hex; `"data"` is
//! the flat row-major list.

use half::{bf16, f16};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use tensorgraph::format::checkpoint::{
    latest_checkpoint, read_checkpoint_state, write_checkpoint, write_checkpoint_state, CheckpointReader,
    CheckpointState, CheckpointWriter,
};
use tensorgraph::tensor::Storage;
use tensorgraph::train::Saver;
use tensorgraph::{init, DType, Graph, Reuse, Session, Tensor};

type Res<T> = Result<T, String>;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The manifest entry of a tensor: name, dtype, shape and its exact values.
fn tensor_entry(name: &str, t: &Tensor) -> Value {
    let (encoding, data): (&str, Vec<Value>) = match t.storage() {
        Storage::F32(v) => ("bits", v.iter().map(|x| x.to_bits().into()).collect()),
        Storage::F64(v) => ("bits", v.iter().map(|x| x.to_bits().into()).collect()),
        Storage::F16(v) => ("bits", v.iter().map(|x| x.to_bits().into()).collect()),
        Storage::BF16(v) => ("bits", v.iter().map(|x| x.to_bits().into()).collect()),
        Storage::C64(v) => ("bits", v.iter().flat_map(|c| [c[0].to_bits().into(), c[1].to_bits().into()]).collect()),
        Storage::C128(v) => ("bits", v.iter().flat_map(|c| [c[0].to_bits().into(), c[1].to_bits().into()]).collect()),
        Storage::I8(v) => ("int", v.iter().map(|&x| x.into()).collect()),
        Storage::I16(v) => ("int", v.iter().map(|&x| x.into()).collect()),
        Storage::I32(v) => ("int", v.iter().map(|&x| x.into()).collect()),
        Storage::I64(v) => ("int", v.iter().map(|&x| x.into()).collect()),
        Storage::U8(v) => ("int", v.iter().map(|&x| x.into()).collect()),
        Storage::U16(v) => ("int", v.iter().map(|&x| x.into()).collect()),
        Storage::U32(v) => ("int", v.iter().map(|&x| x.into()).collect()),
        Storage::U64(v) => ("int", v.iter().map(|&x| x.into()).collect()),
        Storage::Bool(v) => ("bool", v.iter().map(|&x| x.into()).collect()),
        Storage::Str(v) => ("hex", v.iter().map(|s| hex(s).into()).collect()),
        Storage::QI8(v) => ("int", v.iter().map(|x| x.0.into()).collect()),
        Storage::QU8(v) => ("int", v.iter().map(|x| x.0.into()).collect()),
        Storage::QI16(v) => ("int", v.iter().map(|x| x.0.into()).collect()),
        Storage::QU16(v) => ("int", v.iter().map(|x| x.0.into()).collect()),
        Storage::QI32(v) => ("int", v.iter().map(|x| x.0.into()).collect()),
        // checkpoints never hold variant values (TensorLists)
        Storage::Variant(v) => ("variant", v.iter().map(|x| x.type_name().into()).collect()),
    };
    json!({"name": name, "dtype": t.dtype().name(), "shape": t.shape(), "encoding": encoding, "data": data})
}

fn t<T: tensorgraph::tensor::Element>(shape: &[usize], v: Vec<T>) -> Res<Tensor> {
    Tensor::new(shape, v).map_err(err)
}

/// The tensors of `all_dtypes/model.ckpt`.
fn all_dtypes() -> Res<Vec<(String, Tensor)>> {
    let f32s = vec![
        0.0f32,
        -0.0,
        1.5,
        -2.25,
        0.1,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::from_bits(0x7fc0_0001), // NaN with a payload
        f32::from_bits(0xffc0_0000), // negative NaN
        f32::MIN_POSITIVE,
        f32::from_bits(1), // smallest subnormal
        f32::MAX,
        f32::MIN,
        std::f32::consts::PI,
        1e-7,
    ];
    let f64s = vec![
        0.0f64,
        -0.0,
        1.0 / 3.0,
        -1e300,
        f64::from_bits(1),
        f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::from_bits(0x7ff8_0000_0000_0abc),
        std::f64::consts::PI,
        9_007_199_254_740_993.0,
    ];
    let f16s: Vec<f16> =
        [0x0000u16, 0x8000, 0x3c00, 0xc100, 0x7bff, 0x0001, 0x0400, 0x7c00, 0xfc00, 0x7e00, 0x3555, 0x7e01]
            .iter()
            .map(|&b| f16::from_bits(b))
            .collect();
    let bf16s: Vec<bf16> =
        [0x0000u16, 0x8000, 0x3f80, 0xc020, 0x7f7f, 0x0001, 0x0080, 0x7f80, 0xff80, 0x7fc0, 0x3eab, 0x4049]
            .iter()
            .map(|&b| bf16::from_bits(b))
            .collect();
    let long = |c: u8, n: usize| vec![c; n];
    let mut pattern = Vec::with_capacity(70_000);
    for i in 0..70_000u32 {
        pattern.push((i % 251) as u8);
    }
    let strings = vec![
        Vec::new(),
        b"hello".to_vec(),
        "h\u{e9}llo \u{2603} \u{1F600}".as_bytes().to_vec(),
        b"\x00\xff\x01bin\x00".to_vec(),
        long(b'x', 127),
        long(b'y', 128),
        long(b'z', 300),
        pattern,
    ];
    Ok(vec![
        ("dtypes/float16".into(), t(&[2, 6], f16s)?),
        ("dtypes/bfloat16".into(), t(&[12], bf16s)?),
        ("dtypes/float32".into(), t(&[4, 4], f32s)?),
        ("dtypes/float64".into(), t(&[3, 4], f64s)?),
        ("dtypes/int8".into(), t(&[6], vec![i8::MIN, i8::MAX, 0, -1, 1, 42])?),
        ("dtypes/int16".into(), t(&[2, 3], vec![i16::MIN, i16::MAX, 0, -1, 1, 12345])?),
        ("dtypes/int32".into(), t(&[6], vec![i32::MIN, i32::MAX, 0, -1, 1, 123_456_789])?),
        ("dtypes/int64".into(), t(&[6], vec![i64::MIN, i64::MAX, 0, -1, 1, 9_007_199_254_740_993])?),
        ("dtypes/uint8".into(), t(&[4], vec![0u8, u8::MAX, 1, 128])?),
        ("dtypes/uint16".into(), t(&[4], vec![0u16, u16::MAX, 1, 0x8000])?),
        ("dtypes/uint32".into(), t(&[4], vec![0u32, u32::MAX, 1, 0x8000_0000])?),
        ("dtypes/uint64".into(), t(&[4], vec![0u64, u64::MAX, 1, 0x8000_0000_0000_0001])?),
        ("dtypes/bool".into(), t(&[2, 3], vec![true, false, true, false, false, true])?),
        (
            "dtypes/complex64".into(),
            t(
                &[5],
                vec![
                    [1.0f32, 2.0],
                    [-3.5, -0.5],
                    [0.0, -0.0],
                    [f32::INFINITY, f32::NAN],
                    [f32::MAX, f32::from_bits(1)],
                ],
            )?,
        ),
        (
            "dtypes/complex128".into(),
            t(&[3], vec![[1.0f64, 2.0], [-1e300, f64::from_bits(1)], [f64::NAN, f64::NEG_INFINITY]])?,
        ),
        ("dtypes/string".into(), Tensor::strings(&[8], strings).map_err(err)?),
        (
            "dtypes/string_matrix".into(),
            Tensor::strings(&[2, 2], vec![b"a".to_vec(), b"bb".to_vec(), Vec::new(), b"dddd".to_vec()]).map_err(err)?,
        ),
        ("dtypes/string_all_empty".into(), Tensor::strings(&[3], vec![Vec::new(); 3]).map_err(err)?),
        ("scalar/float32".into(), Tensor::scalar(42.5f32)),
        ("scalar/int64".into(), Tensor::scalar(-7i64)),
        ("scalar/bool".into(), Tensor::scalar(true)),
        ("scalar/string".into(), Tensor::strings(&[], vec![b"a scalar string".to_vec()]).map_err(err)?),
        ("empty/float32".into(), Tensor::zeros(DType::Float, &[0])),
        ("empty/int32".into(), Tensor::zeros(DType::Int32, &[3, 0])),
        ("empty/float16".into(), Tensor::zeros(DType::Half, &[0, 2])),
        ("empty/string".into(), Tensor::strings(&[0], Vec::new()).map_err(err)?),
    ])
}

/// `(start, length)` of each of `num_shards` parts of a dimension of size `dim`, as
/// `fixed_size_partitioner` / `_compute_slice_dim_and_shape` split it: the first
/// `dim % num_shards` parts get one extra element.
fn partition(dim: usize, num_shards: usize) -> Vec<(usize, usize)> {
    let (base, extra) = (dim / num_shards, dim % num_shards);
    let mut start = 0;
    (0..num_shards)
        .map(|i| {
            let len = base + usize::from(i < extra);
            let e = (start, len);
            start += len;
            e
        })
        .collect()
}

/// Named tensors and the manifest's description of how they were partitioned.
type Partitioned = (Vec<(String, Tensor)>, Vec<Value>);

/// Writes `partitioned/model.ckpt`; returns the full tensors and the partitioning.
fn write_partitioned(prefix: &Path) -> Res<Partitioned> {
    let weights = t(&[10, 4], (0..40).map(|i| i as f32 * 0.5 - 3.0).collect())?;
    let embedding = t(&[5, 6], (0..30).map(|i| (i as f64).sqrt() - 2.0).collect())?;
    let bias = t(&[4], vec![0.25f32, -0.5, 1.0, 2.0])?;
    let mut w = CheckpointWriter::new(prefix).map_err(err)?;
    let mut parts = Vec::new();
    for (name, full, axis, shards) in [("part/weights", &weights, 0usize, 3usize), ("part/embedding", &embedding, 1, 2)]
    {
        let shape = full.shape().to_vec();
        let mut slices = Vec::new();
        for (start, len) in partition(shape[axis], shards) {
            let extents: Vec<(usize, usize)> =
                shape.iter().enumerate().map(|(d, &n)| if d == axis { (start, len) } else { (0, n) }).collect();
            let slice = slice_of(full, &extents)?;
            w.add_slice(name, &shape, &extents, &slice).map_err(err)?;
            slices.push(extents.iter().map(|&(s, l)| json!([s, l])).collect::<Vec<_>>());
        }
        parts.push(json!({"name": name, "shape": shape, "axis": axis, "num_shards": shards, "slices": slices}));
    }
    w.add("part/bias", &bias).map_err(err)?;
    w.finish().map_err(err)?;
    let tensors =
        vec![("part/weights".into(), weights), ("part/embedding".into(), embedding), ("part/bias".into(), bias)];
    Ok((tensors, parts))
}

/// The sub-tensor of a 2-D tensor at `extents` (`(start, length)` per dimension).
fn slice_of(full: &Tensor, extents: &[(usize, usize)]) -> Res<Tensor> {
    let cols = full.shape()[1];
    let idx: Vec<usize> = (extents[0].0..extents[0].0 + extents[0].1)
        .flat_map(|r| (extents[1].0..extents[1].0 + extents[1].1).map(move |c| r * cols + c))
        .collect();
    Tensor::from_storage(&[extents[0].1, extents[1].1], full.storage().gather(&idx)).map_err(err)
}

/// A small graph (`model/weights` [3, 2], `model/biases` [2], `global_step` int64 []) and an
/// initialized session.
fn small_model() -> Res<(Graph, Session, Vec<tensorgraph::Variable>)> {
    let graph = Graph::new();
    let root = graph.scope();
    let (wv, bv) = root
        .variable_scope("model", Reuse::No, |s| {
            Ok((
                s.get_variable("weights", [3, 2], DType::Float, init::zeros())?,
                s.get_variable("biases", [2], DType::Float, init::zeros())?,
            ))
        })
        .map_err(err)?;
    let step = root.get_variable("global_step", Vec::<usize>::new(), DType::Int64, init::zeros()).map_err(err)?;
    let init = root.global_variables_initializer().map_err(err)?;
    let sess = Session::new(&graph).map_err(err)?;
    sess.run_targets(&[&init]).map_err(err)?;
    Ok((graph, sess, vec![wv, bv, step]))
}

/// Sets the small model's variables to values that depend on `step`.
fn set_step_values(sess: &Session, vars: &[tensorgraph::Variable], step: u64) -> Res<()> {
    let s = step as f32;
    sess.set_variable_value(vars[0].op(), t(&[3, 2], (0..6).map(|i| s / 100.0 + i as f32 * 0.125).collect())?)
        .map_err(err)?;
    sess.set_variable_value(vars[1].op(), t(&[2], vec![-s, s / 3.0])?).map_err(err)?;
    sess.set_variable_value(vars[2].op(), Tensor::scalar(step as i64)).map_err(err)
}

/// The manifest entry of the checkpoint `prefix`, read back through tensorgraph's reader
/// (which checks that what was written reads back equal to `expected`).
fn checkpoint_entry(out: &Path, prefix: &Path, expected: &[(String, Tensor)]) -> Res<Value> {
    let reader = CheckpointReader::open(prefix).map_err(err)?;
    let mut sorted: Vec<&(String, Tensor)> = expected.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let listed: Vec<String> = reader.list().into_iter().map(|(n, _, _)| n).collect();
    let names: Vec<String> = sorted.iter().map(|(n, _)| n.clone()).collect();
    if listed != names {
        return Err(format!("{}: lists {listed:?}, wrote {names:?}", prefix.display()));
    }
    let mut tensors = Vec::new();
    for (name, want) in sorted {
        let got = reader.read(name).map_err(err)?;
        let (a, b) = (tensor_entry(name, &got), tensor_entry(name, want));
        if a != b {
            return Err(format!("{}: tensor {name} reads back differently", prefix.display()));
        }
        tensors.push(a);
    }
    Ok(json!({"prefix": rel(out, prefix), "tensors": tensors}))
}

fn rel(out: &Path, p: &Path) -> String {
    p.strip_prefix(out).unwrap_or(p).to_string_lossy().into_owned()
}

/// The state file of `dir` as tensorgraph reads it, and its `latest_checkpoint` (paths
/// relative to `out`).
fn state_entry(out: &Path, dir: &Path) -> Res<Value> {
    let st = read_checkpoint_state(dir).map_err(err)?.ok_or_else(|| format!("no state file in {}", dir.display()))?;
    let latest = latest_checkpoint(dir).map_err(err)?.map(|p| rel(out, &p));
    let r = |p: &String| rel(out, Path::new(p));
    Ok(json!({
        "dir": rel(out, dir),
        "latest_checkpoint": latest,
        "model_checkpoint_path": r(&st.model_checkpoint_path),
        "all_model_checkpoint_paths": st.all_model_checkpoint_paths.iter().map(r).collect::<Vec<_>>(),
    }))
}

fn run(out: &Path) -> Res<()> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let out = out.canonicalize().map_err(|e| format!("{}: {e}", out.display()))?;
    let mut checkpoints = Vec::new();
    let mut states = Vec::new();

    // every dtype, scalars and empty tensors, with a state file
    let dir = out.join("all_dtypes");
    let prefix = dir.join("model.ckpt");
    let tensors = all_dtypes()?;
    write_checkpoint(&prefix, &tensors).map_err(err)?;
    let state = CheckpointState {
        model_checkpoint_path: prefix.to_string_lossy().into_owned(),
        all_model_checkpoint_paths: vec![prefix.to_string_lossy().into_owned()],
        ..Default::default()
    };
    write_checkpoint_state(&dir, &state).map_err(err)?;
    checkpoints.push(checkpoint_entry(&out, &prefix, &tensors)?);
    states.push(state_entry(&out, &dir)?);

    // partitioned variables
    let dir = out.join("partitioned");
    let prefix = dir.join("model.ckpt");
    let (tensors, partitioned) = write_partitioned(&prefix)?;
    let p = prefix.to_string_lossy().into_owned();
    let state = CheckpointState { model_checkpoint_path: p.clone(), all_model_checkpoint_paths: vec![p], ..state };
    write_checkpoint_state(&dir, &state).map_err(err)?;
    checkpoints.push(checkpoint_entry(&out, &prefix, &tensors)?);
    states.push(state_entry(&out, &dir)?);

    // Saver saves with global steps, and with max_to_keep
    for (name, steps, keep) in [("steps", vec![200u64, 400, 600, 800, 1000], 5usize), ("keep2", vec![1, 2, 3, 4], 2)] {
        let dir = out.join(name);
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let (_graph, sess, vars) = small_model()?;
        let saver = Saver::with_var_list(&vars).map_err(err)?.max_to_keep(keep);
        let mut saved = Vec::new();
        for step in steps {
            set_step_values(&sess, &vars, step)?;
            let prefix = saver.save_with_step(&sess, dir.join("model.ckpt"), step).map_err(err)?;
            let values: Vec<(String, Tensor)> =
                vars.iter().map(|v| (v.op_name(), sess.variable_value(v.op()).expect("initialized"))).collect();
            saved.push((prefix, values));
        }
        for (prefix, values) in saved.iter().skip(saved.len().saturating_sub(keep)) {
            checkpoints.push(checkpoint_entry(&out, prefix, values)?);
        }
        states.push(json!({
            "deleted": saved.iter().take(saved.len().saturating_sub(keep)).map(|(p, _)| rel(&out, p)).collect::<Vec<_>>(),
            "state": state_entry(&out, &dir)?,
        }));
    }
    let states: Vec<Value> = states
        .into_iter()
        .map(|s| if s.get("state").is_some() { s } else { json!({"deleted": [], "state": s}) })
        .collect();

    let num_checkpoints = checkpoints.len();
    let manifest = json!({
        "writer": format!("tensorgraph {}", env!("CARGO_PKG_VERSION")),
        "dir": out.to_string_lossy(),
        "checkpoints": checkpoints,
        "partitioned": partitioned,
        "state_dirs": states,
    });
    let path = out.join("manifest.json");
    let text = serde_json::to_string_pretty(&manifest).map_err(err)?;
    std::fs::write(&path, text + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("wrote {num_checkpoints} checkpoints and {}", path.display());
    Ok(())
}

fn main() -> std::process::ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if args.len() != 1 {
        eprintln!("usage: write_checkpoints DIR");
        return std::process::ExitCode::from(2);
    }
    match run(&args[0]) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
