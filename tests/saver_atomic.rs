//! Saves are atomic: a saver killed with SIGKILL at any moment leaves `latest_checkpoint`
//! naming a complete checkpoint, with its whole `.meta`. The test re-runs this test binary
//! as a child that saves in a loop (`TG_KILL_CHILD=<dir>` selects that mode) and kills it
//! at random moments.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tensorgraph::format::checkpoint::{latest_checkpoint, meta_graph_path, read_checkpoint_state, CheckpointReader};
use tensorgraph::io::meta_graph::read_meta_graph;
use tensorgraph::train::Saver;
use tensorgraph::{Graph, Session, Tensor};

const CHILD_ENV: &str = "TG_KILL_CHILD";
const SHARDS_ENV: &str = "TG_KILL_CHILD_SHARDS";
/// Elements of the float tensors `a` and `b`: 1 MiB of data per save in all.
const N: usize = 1 << 17;

/// The values saved at `step`: `step` (int64), `a[i] = step + i`, `b[i] = -step - i/2`.
fn expected(step: i64) -> [(String, Tensor); 3] {
    let a: Vec<f32> = (0..N).map(|i| (step + i as i64) as f32).collect();
    let b: Vec<f32> = (0..N).map(|i| -(step as f32) - (i / 2) as f32).collect();
    [
        ("a".into(), Tensor::new(&[N], a).unwrap()),
        ("b".into(), Tensor::new(&[N], b).unwrap()),
        ("step".into(), Tensor::scalar(step)),
    ]
}

/// The step a prefix `.../model.ckpt-<step>` names.
fn step_of(prefix: &Path) -> i64 {
    let name = prefix.file_name().unwrap().to_str().unwrap();
    name.rsplit_once('-').unwrap().1.parse().unwrap()
}

/// Child mode: resume from the latest checkpoint of the directory in `$TG_KILL_CHILD` and save
/// steps after it forever (until killed). Without the variable this test does nothing.
#[test]
fn child_saves_forever() {
    let Some(dir) = std::env::var_os(CHILD_ENV).map(PathBuf::from) else { return };
    let shards: usize = std::env::var(SHARDS_ENV).ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let g = Graph::new();
    let root = g.scope();
    let vars: Vec<_> = expected(0)
        .into_iter()
        .map(|(name, t)| root.variable_from_value(&name, Tensor::zeros(t.dtype(), t.shape())).unwrap())
        .collect();
    let sess = Session::new(&g).unwrap();
    let saver = Saver::new(&g).unwrap().max_to_keep(3).num_shards(shards).sync(false);
    saver.recover_from_checkpoint_state(&dir).unwrap();
    let mut step = latest_checkpoint(&dir).unwrap().map_or(0, |p| step_of(&p) + 1);
    loop {
        for (v, (_, t)) in vars.iter().zip(expected(step)) {
            sess.set_variable_value(v.op(), t).unwrap();
        }
        saver.save_with_step(&sess, dir.join("model.ckpt"), step as u64).unwrap();
        step += 1;
    }
}

/// Opens `prefix` and checks that it holds exactly the values of the step its name gives,
/// and that its `.meta` is a whole meta graph with the saver's `SaverDef`.
fn check_complete(prefix: &Path) {
    let meta = read_meta_graph(meta_graph_path(prefix)).unwrap_or_else(|e| panic!("{}: {e}", prefix.display()));
    assert_eq!(meta.saver_def.map(|d| d.restore_op_name).as_deref(), Some("save/restore_all"));
    let step = step_of(prefix);
    let r = CheckpointReader::open(prefix).unwrap_or_else(|e| panic!("{}: {e}", prefix.display()));
    assert_eq!(r.list().len(), 3, "{}", prefix.display());
    for (name, want) in expected(step) {
        let got = r.read(&name).unwrap_or_else(|e| panic!("{} {name}: {e}", prefix.display()));
        assert!(got == want, "{}: tensor {name} does not hold step {step}'s values", prefix.display());
    }
}

#[test]
fn killed_saves_leave_a_complete_latest_checkpoint() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let exe = std::env::current_exe().unwrap();
    let started = Instant::now();
    let mut kills = 0;
    let mut steps_seen = std::collections::BTreeSet::new();
    // how long a child takes from its start to its first save (measured on the first one):
    // later children are killed within three times that, so that most of them get to save
    let mut window = Duration::from_millis(50);
    while kills < 30 && started.elapsed() < Duration::from_secs(8) {
        let shards = 1 + kills % 3;
        let mut child = Command::new(&exe)
            .args(["--exact", "child_saves_forever", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, dir)
            .env(SHARDS_ENV, shards.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The first child runs until it has saved; later ones are killed anywhere, even
        // before they save anything.
        if kills == 0 {
            let t = Instant::now();
            while latest_checkpoint(dir).unwrap().is_none() {
                assert!(t.elapsed() < Duration::from_secs(20), "the child saved nothing");
                assert!(child.try_wait().unwrap().is_none(), "the child exited");
                std::thread::sleep(Duration::from_millis(2));
            }
            window = window.max(t.elapsed() * 3);
        }
        std::thread::sleep(Duration::from_micros(rand::random::<u64>() % window.as_micros() as u64));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        kills += 1;

        let latest = latest_checkpoint(dir).unwrap().expect("a latest checkpoint after a kill");
        check_complete(&latest);
        steps_seen.insert(step_of(&latest));
        // Every checkpoint the state file lists exists and is complete too.
        let st = read_checkpoint_state(dir).unwrap().unwrap();
        assert!(st.all_model_checkpoint_paths.len() <= 3, "{st:?}");
        for p in &st.all_model_checkpoint_paths {
            check_complete(Path::new(p));
        }
    }
    eprintln!("kills {kills}, kill window {window:?}, steps seen {steps_seen:?}");
    assert!(kills >= 10, "only {kills} kills in the time allowed");
    assert!(steps_seen.len() >= 3, "the children made too little progress: steps {steps_seen:?}");
}
