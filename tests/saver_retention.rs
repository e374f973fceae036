//! `Saver` bookkeeping as `tf.compat.v1.train.Saver`: `max_to_keep` deletes the oldest
//! checkpoints, `keep_checkpoint_every_n_hours` preserves some, the state file lists the rest.

use std::path::{Path, PathBuf};
use tensorgraph::format::checkpoint::{latest_checkpoint, read_checkpoint_state, CheckpointReader, CheckpointState};
use tensorgraph::train::Saver;
use tensorgraph::{Graph, Session, Tensor};

/// A graph with variables `a` (float [3]) and `step` (int64 scalar) and an initialized session.
fn model() -> (Graph, Session) {
    let g = Graph::new();
    let root = g.scope();
    root.variable_from_value("a", Tensor::new(&[3], vec![1f32, 2., 3.]).unwrap()).unwrap();
    root.variable_from_value("step", Tensor::scalar(0i64)).unwrap();
    let init = root.global_variables_initializer().unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&init]).unwrap();
    (g, sess)
}

fn set_step(g: &Graph, sess: &Session, step: i64) {
    for v in g.global_variables() {
        let t = if v.op_name() == "step" {
            Tensor::scalar(step)
        } else {
            Tensor::new(&[3], vec![step as f32, step as f32 + 0.5, -(step as f32)]).unwrap()
        };
        sess.set_variable_value(v.op(), t).unwrap();
    }
}

/// The sorted file names of `dir`.
fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// The files of checkpoints `steps` (index, data file and `.meta`, as `Saver::save` writes
/// them) and the state file, sorted.
fn ckpt_files(steps: &[u64]) -> Vec<String> {
    let mut v = vec!["checkpoint".to_string()];
    for s in steps {
        v.push(format!("model.ckpt-{s}.data-00000-of-00001"));
        v.push(format!("model.ckpt-{s}.index"));
        v.push(format!("model.ckpt-{s}.meta"));
    }
    v.sort();
    v
}

fn state_text(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("checkpoint")).unwrap()
}

#[test]
fn max_to_keep_deletes_oldest_first() {
    let (g, sess) = model();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let saver = Saver::new(&g).unwrap().max_to_keep(3);
    for step in 1..=7u64 {
        set_step(&g, &sess, step as i64);
        let p = saver.save_with_step(&sess, dir.join("model.ckpt"), step).unwrap();
        assert_eq!(p, dir.join(format!("model.ckpt-{step}")));
        let kept: Vec<u64> = (step.saturating_sub(2).max(1)..=step).collect();
        assert_eq!(files(dir), ckpt_files(&kept), "after save {step}");
        let mut want = format!("model_checkpoint_path: \"model.ckpt-{step}\"\n");
        for k in &kept {
            want.push_str(&format!("all_model_checkpoint_paths: \"model.ckpt-{k}\"\n"));
        }
        assert_eq!(state_text(dir), want, "state after save {step}");
    }
    let kept: Vec<PathBuf> = (5..=7).map(|s| dir.join(format!("model.ckpt-{s}"))).collect();
    assert_eq!(saver.last_checkpoints(), kept);
    let latest = latest_checkpoint(dir).unwrap().unwrap();
    assert_eq!(latest, dir.join("model.ckpt-7"));
    let r = CheckpointReader::open(&latest).unwrap();
    assert_eq!(r.read("step").unwrap(), Tensor::scalar(7i64));
    assert_eq!(r.read("a").unwrap(), Tensor::new(&[3], vec![7f32, 7.5, -7.]).unwrap());

    // Saving to a listed path again moves it to the end instead of listing it twice.
    saver.save_with_step(&sess, dir.join("model.ckpt"), 6).unwrap();
    assert_eq!(
        state_text(dir),
        "model_checkpoint_path: \"model.ckpt-6\"\nall_model_checkpoint_paths: \"model.ckpt-5\"\n\
         all_model_checkpoint_paths: \"model.ckpt-7\"\nall_model_checkpoint_paths: \"model.ckpt-6\"\n"
    );
    assert_eq!(files(dir), ckpt_files(&[5, 6, 7]));
}

#[test]
fn max_to_keep_zero_keeps_all_files_and_lists_the_newest() {
    let (g, sess) = model();
    let tmp = tempfile::tempdir().unwrap();
    let saver = Saver::new(&g).unwrap().max_to_keep(0);
    for step in 1..=4u64 {
        saver.save_with_step(&sess, tmp.path().join("model.ckpt"), step).unwrap();
    }
    assert_eq!(files(tmp.path()), ckpt_files(&[1, 2, 3, 4]));
    assert_eq!(
        state_text(tmp.path()),
        "model_checkpoint_path: \"model.ckpt-4\"\nall_model_checkpoint_paths: \"model.ckpt-4\"\n"
    );
}

#[test]
fn a_new_saver_manages_only_its_own_checkpoints_until_it_recovers_them() {
    let (g, sess) = model();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let first = Saver::new(&g).unwrap().max_to_keep(2);
    for step in 1..=2u64 {
        first.save_with_step(&sess, dir.join("model.ckpt"), step).unwrap();
    }
    // As TensorFlow: a fresh saver starts with an empty list.
    let second = Saver::new(&g).unwrap().max_to_keep(2);
    second.save_with_step(&sess, dir.join("model.ckpt"), 3).unwrap();
    assert_eq!(files(dir), ckpt_files(&[1, 2, 3]));
    // Recovering the state file's list makes it delete the older ones.
    let third = Saver::new(&g).unwrap().max_to_keep(2);
    std::fs::remove_file(dir.join("checkpoint")).unwrap();
    assert!(!third.recover_from_checkpoint_state(dir).unwrap());
    third.recover_last_checkpoints(&[dir.join("model.ckpt-1"), dir.join("model.ckpt-2"), dir.join("gone")]);
    assert_eq!(third.last_checkpoints(), [dir.join("model.ckpt-1"), dir.join("model.ckpt-2")]);
    third.save_with_step(&sess, dir.join("model.ckpt"), 4).unwrap();
    assert_eq!(files(dir), ckpt_files(&[2, 3, 4]));
    let st = read_checkpoint_state(dir).unwrap().unwrap();
    assert_eq!(st.all_model_checkpoint_paths, [dir.join("model.ckpt-2"), dir.join("model.ckpt-4")].map(s));
}

fn s(p: PathBuf) -> String {
    p.to_string_lossy().into_owned()
}

#[test]
fn keep_checkpoint_every_n_hours_preserves_and_records_timestamps() {
    let (g, sess) = model();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as f64;
    let h = 3600.0;
    let plain = Saver::new(&g).unwrap().max_to_keep(0);
    for step in 1..=5u64 {
        plain.save_with_step(&sess, dir.join("model.ckpt"), step).unwrap();
    }
    // A state file as an earlier run (or tf.train.CheckpointManager) leaves it: five
    // checkpoints saved 10, 9.5, 7, 6.9 and 1 hours ago; one preserved 12.5 hours ago.
    let ages = [10.0, 9.5, 7.0, 6.9, 1.0];
    let st = CheckpointState {
        model_checkpoint_path: "model.ckpt-5".into(),
        all_model_checkpoint_paths: (1..=5).map(|k| format!("model.ckpt-{k}")).collect(),
        all_model_checkpoint_timestamps: ages.iter().map(|a| now - a * h).collect(),
        last_preserved_timestamp: now - 12.5 * h,
    };
    std::fs::write(dir.join("checkpoint"), tensorgraph::format::proto::text::TextFormat::to_text(&st).unwrap())
        .unwrap();

    let saver = Saver::new(&g).unwrap().max_to_keep(2).keep_checkpoint_every_n_hours(2.0);
    assert!(saver.recover_from_checkpoint_state(dir).unwrap());
    assert_eq!(saver.last_checkpoints().len(), 5);
    saver.save_with_step(&sess, dir.join("model.ckpt"), 6).unwrap();
    // Let go oldest first: ckpt-1 (2.5 h after the last preserved) is kept and becomes the
    // last preserved; ckpt-2 (0.5 h after it) is deleted; ckpt-3 (3 h after ckpt-1) is kept;
    // ckpt-4 (0.1 h after ckpt-3) is deleted. ckpt-5 and ckpt-6 stay listed.
    assert_eq!(files(dir), ckpt_files(&[1, 3, 5, 6]));
    let st = read_checkpoint_state(dir).unwrap().unwrap();
    assert_eq!(st.model_checkpoint_path, s(dir.join("model.ckpt-6")));
    assert_eq!(st.all_model_checkpoint_paths, [s(dir.join("model.ckpt-5")), s(dir.join("model.ckpt-6"))]);
    assert_eq!(st.last_preserved_timestamp, now - 7.0 * h);
    assert_eq!(st.all_model_checkpoint_timestamps.len(), 2);
    assert_eq!(st.all_model_checkpoint_timestamps[0], now - 1.0 * h);
    let t6 = st.all_model_checkpoint_timestamps[1];
    assert!((t6 - now).abs() < 600.0, "timestamp of the new save {t6} vs now {now}");
    let text = state_text(dir);
    assert!(text.contains("last_preserved_timestamp: "), "{text}");

    // Without the option (TensorFlow's default of 10000 hours) nothing old is preserved.
    let saver = Saver::new(&g).unwrap().max_to_keep(1);
    assert!(saver.recover_from_checkpoint_state(dir).unwrap());
    saver.save_with_step(&sess, dir.join("model.ckpt"), 7).unwrap();
    assert_eq!(files(dir), ckpt_files(&[1, 3, 7]));
    assert_eq!(
        state_text(dir),
        "model_checkpoint_path: \"model.ckpt-7\"\nall_model_checkpoint_paths: \"model.ckpt-7\"\n"
    );
}

#[test]
fn save_errors_leave_no_files() {
    let (g, sess) = model();
    let tmp = tempfile::tempdir().unwrap();
    let saver = Saver::new(&g).unwrap();
    let err = saver.save(&sess, tmp.path().join("missing/model.ckpt")).unwrap_err();
    assert_eq!(err.code, tensorgraph::Code::NotFound);
    assert!(err.message.contains("doesn't exist"), "{err}");
    // An uninitialized variable fails before any file is created.
    let g2 = Graph::new();
    g2.scope().variable_from_value("v", Tensor::scalar(1f32)).unwrap();
    let fresh = Session::new(&g2).unwrap();
    let err = Saver::new(&g2).unwrap().save(&fresh, tmp.path().join("model.ckpt")).unwrap_err();
    assert_eq!(err.code, tensorgraph::Code::FailedPrecondition, "{err}");
    assert!(files(tmp.path()).is_empty(), "{:?}", files(tmp.path()));
}
