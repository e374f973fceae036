//! Running the `tensorgraph` binary in tests: exit code, stdout and stderr.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

/// What one run of the binary gave.
pub struct Out {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `tensorgraph args...`.
pub fn tg<S: AsRef<OsStr>>(args: &[S]) -> Out {
    let out = Command::new(env!("CARGO_BIN_EXE_tensorgraph")).args(args).output().unwrap();
    Out {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Must succeed (exit 0).
pub fn ok<S: AsRef<OsStr>>(args: &[S]) -> Out {
    let o = tg(args);
    assert_eq!(o.code, Some(0), "stdout: {}\nstderr: {}", o.stdout, o.stderr);
    o
}

/// Must fail cleanly: exit 1, `error: ...` on stderr naming `needle`, nothing on stdout.
pub fn fails<S: AsRef<OsStr>>(args: &[S], needle: &str) -> String {
    let o = tg(args);
    assert_eq!(o.code, Some(1), "stdout: {}\nstderr: {}", o.stdout, o.stderr);
    assert!(o.stderr.starts_with("error: "), "stderr: {}", o.stderr);
    assert!(!o.stderr.contains("panicked"), "stderr: {}", o.stderr);
    assert!(o.stderr.contains(needle), "want {needle:?} in stderr: {}", o.stderr);
    assert!(o.stdout.is_empty(), "stdout on error: {}", o.stdout);
    o.stderr
}

/// Must fail cleanly with exactly `error: {want}` on stderr, exit 1 and nothing on stdout.
pub fn fails_with<S: AsRef<OsStr>>(args: &[S], want: &str) {
    let o = tg(args);
    assert_eq!(o.code, Some(1), "stdout: {}\nstderr: {}", o.stdout, o.stderr);
    assert_eq!(o.stderr, format!("error: {want}\n"));
    assert!(o.stdout.is_empty(), "stdout on error: {}", o.stdout);
}

/// A path as a command-line argument.
pub fn s(p: &Path) -> String {
    p.display().to_string()
}

/// The arguments of `tensorgraph freeze` for a fixture folder `dir` (its `model.ckpt.meta`
/// and `model.ckpt`), freezing `outputs` into `out`.
pub fn freeze_args(dir: &Path, outputs: &str, out: &Path) -> Vec<String> {
    let meta = s(&dir.join("model.ckpt.meta"));
    let ckpt = s(&dir.join("model.ckpt"));
    ["freeze", "--meta", &meta, "--ckpt", &ckpt, "--outputs", outputs, "-o", &s(out)].map(String::from).to_vec()
}
