//! Writing the CLI's output.

use std::io::Write;

/// Writes `text` to stdout; a closed pipe (`| head`) is not an error.
pub fn write_stdout(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(format!("cannot write to stdout: {e}")),
    }
}

/// `println!` through [`write_stdout`], for a command's progress lines: a closed pipe
/// (`demo | head -2`) stops the output, not the command; another write error is returned
/// with `?` from the enclosing function (which returns `Result<_, String>`).
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::output::write_stdout(&format!("{}\n", format_args!($($arg)*)))?
    };
}
pub(crate) use say;
