//! The stateless random ops (`StatelessRandomUniform`, `StatelessRandomNormal`,
//! `StatelessTruncatedNormal`, their `V2` forms, `StatelessRandomGetKeyCounter`) against
//! TensorFlow 2.21's values (`tests/data/stateless_random/cases.json`, written by
//! `scripts/gen_stateless_random.py`): uniform values bit for bit, normals within 1e-6,
//! keys and counters exactly, and TensorFlow's errors for bad seeds, keys, algorithms and
//! shapes.

mod common;
use common::repo_root;
use serde_json::Value;
use tensorgraph::ops::{self, constant, placeholder_with_default};
use tensorgraph::{Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

fn cases() -> Value {
    let path = repo_root().join("tests/data/stateless_random/cases.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect()
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect()
}

fn seed(s: &Scope, case: &Value) -> Output {
    let v = ints(&case["seed"]);
    let t = match case["seed_dtype"].as_str().unwrap() {
        "int32" => Tensor::vector(v.iter().map(|&x| x as i32).collect::<Vec<_>>()),
        _ => Tensor::vector(v),
    };
    constant(&s.named("seed"), t).unwrap()
}

fn run(out: &Output) -> Tensor {
    Session::new(out.graph()).unwrap().run(&[], &[out], &[]).unwrap().remove(0)
}

/// Builds `case`'s op on constants; its output.
fn build(s: &Scope, case: &Value) -> Output {
    let dims = ints(&case["shape"]);
    let dtype = if case["dtype"] == "float32" { DType::Float } else { DType::Double };
    let op = case["op"].as_str().unwrap();
    if op.ends_with("V2") {
        let shape = constant(&s.named("shape"), Tensor::vector(dims)).unwrap();
        let key = constant(&s.named("key"), Tensor::vector(u64s(&case["key"]))).unwrap();
        let counter = constant(&s.named("counter"), Tensor::vector(u64s(&case["counter"]))).unwrap();
        let alg = constant(&s.named("alg"), Tensor::scalar(case["alg"].as_i64().unwrap() as i32)).unwrap();
        let f = match op {
            "StatelessRandomUniformV2" => ops::stateless_random_uniform_v2,
            "StatelessRandomNormalV2" => ops::stateless_random_normal_v2,
            _ => ops::stateless_truncated_normal_v2,
        };
        f(s, &shape, &key, &counter, &alg, dtype).unwrap()
    } else {
        let shape =
            constant(&s.named("shape"), Tensor::vector(dims.iter().map(|&d| d as i32).collect::<Vec<_>>())).unwrap();
        let f = match op {
            "StatelessRandomUniform" => ops::stateless_random_uniform,
            "StatelessRandomNormal" => ops::stateless_random_normal,
            _ => ops::stateless_truncated_normal,
        };
        f(s, &shape, &seed(s, case), dtype).unwrap()
    }
}

#[test]
fn values_equal_tensorflows() {
    let all = cases();
    let mut checked = 0;
    for case in all["cases"].as_array().unwrap() {
        let op = case["op"].as_str().unwrap();
        if case.get("runs").is_some() {
            continue;
        }
        let g = Graph::new();
        let s = g.scope();
        if op == "StatelessRandomGetKeyCounter" {
            let (key, counter) = ops::stateless_random_get_key_counter(&s, &seed(&s, case)).unwrap();
            let got = Session::new(&g).unwrap().run(&[], &[&key, &counter], &[]).unwrap();
            assert_eq!(got[0].to_vec::<u64>().unwrap(), u64s(&case["key"]), "{case}: key");
            assert_eq!(got[1].to_vec::<u64>().unwrap(), u64s(&case["counter"]), "{case}: counter");
            checked += 1;
            continue;
        }
        let out = build(&s, case);
        let want_shape: Vec<usize> = ints(&case["shape"]).iter().map(|&d| d as usize).collect();
        assert_eq!(out.shape(), Shape::known(&want_shape), "{op}: inferred shape");
        let t = run(&out);
        assert_eq!(t.shape(), want_shape.as_slice(), "{op}: shape");
        let want = u64s(&case["bits"]);
        let (got, want): (Vec<f64>, Vec<f64>) = if case["dtype"] == "float32" {
            let got = t.to_vec::<f32>().unwrap();
            let want: Vec<f32> = want.iter().map(|&b| f32::from_bits(b as u32)).collect();
            if op.contains("Uniform") {
                let gb: Vec<u32> = got.iter().map(|x| x.to_bits()).collect();
                let wb: Vec<u32> = want.iter().map(|x| x.to_bits()).collect();
                assert_eq!(gb, wb, "{op} {:?}: bits", case["shape"]);
            }
            (got.iter().map(|&x| x as f64).collect(), want.iter().map(|&x| x as f64).collect())
        } else {
            let got = t.to_vec::<f64>().unwrap();
            let want: Vec<f64> = want.iter().map(|&b| f64::from_bits(b)).collect();
            if op.contains("Uniform") {
                let gb: Vec<u64> = got.iter().map(|x| x.to_bits()).collect();
                let wb: Vec<u64> = want.iter().map(|x| x.to_bits()).collect();
                assert_eq!(gb, wb, "{op} {:?}: bits", case["shape"]);
            }
            (got, want)
        };
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= 1e-6 * w.abs().max(1.0),
                "{op} {} {:?}[{i}]: {g} vs TensorFlow {w}",
                case["dtype"],
                case["shape"]
            );
        }
        checked += 1;
    }
    assert!(checked >= 300, "every case ran: {checked}");
}

/// `got` against TensorFlow's `bits`: uniform values bit for bit, normals within 1e-6.
fn assert_matches(what: &str, t: &Tensor, float32: bool, bits: &[u64]) {
    let (got, want): (Vec<u64>, Vec<u64>) = if float32 {
        (t.to_vec::<f32>().unwrap().iter().map(|x| u64::from(x.to_bits())).collect(), bits.to_vec())
    } else {
        (t.to_vec::<f64>().unwrap().iter().map(|x| x.to_bits()).collect(), bits.to_vec())
    };
    assert_eq!(got.len(), want.len(), "{what}");
    let value = |b: u64| if float32 { f64::from(f32::from_bits(b as u32)) } else { f64::from_bits(b) };
    for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
        let (g, w) = (value(g), value(w));
        if what.contains("Uniform") {
            assert_eq!(g.to_bits(), w.to_bits(), "{what}[{i}]: {g} vs TensorFlow {w}");
        }
        assert!((g - w).abs() <= 1e-6 * w.abs().max(1.0), "{what}[{i}]: {g} vs TensorFlow {w}");
    }
}

/// `RandomUniform`, `RandomStandardNormal`, `TruncatedNormal` with `seed`/`seed2` set
/// draw TensorFlow's values: the first and second run of a session, and a new session
/// starting over.
#[test]
fn seeded_stateful_ops_draw_tensorflows_values() {
    let all = cases();
    let mut checked = 0;
    for case in all["cases"].as_array().unwrap().iter().filter(|c| c.get("runs").is_some()) {
        let op = case["op"].as_str().unwrap();
        let float32 = case["dtype"] == "float32";
        let g = Graph::new();
        let s = g.scope();
        let dims: Vec<i32> = ints(&case["shape"]).iter().map(|&d| d as i32).collect();
        let shape = constant(&s.named("shape"), Tensor::vector(dims)).unwrap();
        let r = s
            .op(op, op)
            .input(&shape)
            .attr("dtype", if float32 { DType::Float } else { DType::Double })
            .attr("seed", case["seed"].as_i64().unwrap())
            .attr("seed2", case["seed2"].as_i64().unwrap())
            .attr("T", DType::Int32)
            .build_output()
            .unwrap();
        let runs = case["runs"].as_array().unwrap();
        for _session in 0..2 {
            let sess = Session::new(&g).unwrap();
            for (k, want) in runs.iter().enumerate() {
                let t = sess.run(&[], &[&r], &[]).unwrap().remove(0);
                assert_matches(
                    &format!("{op} {} {:?} run {k}", case["dtype"], case["shape"]),
                    &t,
                    float32,
                    &u64s(want),
                );
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 24);
}

/// A fed-by-default input: its value reaches the kernel, not shape inference.
fn opaque(s: &Scope, name: &str, t: Tensor) -> Output {
    let c = constant(&s.named(&format!("{name}_value")), t).unwrap();
    placeholder_with_default(&s.named(name), &c, Shape::unknown()).unwrap()
}

#[test]
fn errors_are_tensorflows() {
    let all = cases();
    let want = |case: &str| -> String {
        let e = all["errors"].as_array().unwrap().iter().find(|e| e["case"] == case).unwrap();
        assert_eq!(e["code"], "InvalidArgumentError");
        e["message"].as_str().unwrap().to_string()
    };
    let check = |case: &str, out: &Output| {
        let e = Session::new(out.graph()).unwrap().run(&[], &[out], &[]).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument, "{case}: {e}");
        assert!(e.message.contains(&want(case)), "{case}: {} lacks TensorFlow's {:?}", e.message, want(case));
    };
    let u64v = |v: Vec<u64>| Tensor::vector(v);
    let v2 = |shape: Tensor, key: Tensor, counter: Tensor, alg: Tensor| {
        let g = Graph::new();
        let s = g.scope();
        let (shape, key) = (opaque(&s, "shape", shape), opaque(&s, "key", key));
        let (counter, alg) = (opaque(&s, "counter", counter), opaque(&s, "alg", alg));
        ops::stateless_random_normal_v2(&s, &shape, &key, &counter, &alg, DType::Float).unwrap()
    };
    let two = || Tensor::vector(vec![2i32]);
    check("key_shape", &v2(two(), u64v(vec![1, 2]), u64v(vec![0, 0]), Tensor::scalar(1i32)));
    check("alg_threefry", &v2(two(), u64v(vec![1]), u64v(vec![0, 0]), Tensor::scalar(2i32)));
    check("alg_rank", &v2(two(), u64v(vec![1]), u64v(vec![0, 0]), Tensor::vector(vec![1i32])));
    check("negative_dim", &v2(Tensor::vector(vec![2i32, -3]), u64v(vec![1]), u64v(vec![0, 0]), Tensor::scalar(1i32)));

    let g = Graph::new();
    let s = g.scope();
    let bad_seed = opaque(&s, "seed", Tensor::vector(vec![1i64, 2, 3]));
    let shape = opaque(&s, "shape", two());
    check("seed_shape", &ops::stateless_random_uniform(&s, &shape, &bad_seed, DType::Float).unwrap());
    let g = Graph::new();
    let s = g.scope();
    let shape = opaque(&s, "shape", Tensor::new(&[1, 1], vec![2i32]).unwrap());
    let seed = opaque(&s, "seed", Tensor::vector(vec![1i64, 2]));
    check("shape_rank", &ops::stateless_random_normal(&s, &shape, &seed, DType::Double).unwrap());
    let g = Graph::new();
    let s = g.scope();
    let (key, _) = ops::stateless_random_get_key_counter(&s, &opaque(&s, "seed", Tensor::vector(vec![1i64]))).unwrap();
    check("get_key_counter_seed", &key);
}

#[test]
fn float16_is_refused_not_run() {
    let g = Graph::new();
    let s = g.scope();
    let shape = constant(&s.named("shape"), Tensor::vector(vec![2i32])).unwrap();
    let seed = constant(&s.named("seed"), Tensor::vector(vec![1i64, 2])).unwrap();
    let e = ops::stateless_random_uniform(&s, &shape, &seed, DType::Half).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
}
