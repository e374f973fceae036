//! Checking every reference of an imported file at once: the importers resolve each name a
//! file refers to (collection entries, the SaverDef's tensor and op names, signature inputs
//! and outputs) and report all that point nowhere in one error, not only the first.

use crate::error::{Code, Error, Result};

/// The values of `results` when all are `Ok`; else one error listing every failure: a
/// single failure unchanged, several as `N {what}: first; second; ...` with the first
/// failure's code.
pub(crate) fn all_or_every_error<T>(results: impl IntoIterator<Item = Result<T>>, what: &str) -> Result<Vec<T>> {
    let mut values = Vec::new();
    let mut errors: Vec<Error> = Vec::new();
    for r in results {
        match r {
            Ok(v) => values.push(v),
            Err(e) => errors.push(e),
        }
    }
    match errors.len() {
        0 => Ok(values),
        1 => Err(errors.remove(0)),
        n => {
            let code = errors[0].code;
            let list: Vec<String> = errors.into_iter().map(|e| e.message).collect();
            Err(Error::new(code, format!("{n} {what}: {}", list.join("; "))))
        }
    }
}

/// One error for the problems several stages of an import found (each stage's list of
/// messages, in stage order): `N {what}: first; second; ...` with `code`; a single problem
/// as its own message. The stages are checked before any fails, so that fixing the listed
/// problems does not reveal more.
pub(crate) fn merged_error<const N: usize>(code: Code, stages: [Vec<String>; N], what: &str) -> Error {
    let all: Vec<String> = stages.into_iter().flatten().collect();
    match all.len() {
        1 => Error::new(code, all.into_iter().next().unwrap_or_default()),
        n => Error::new(code, format!("{n} {what}: {}", all.join("; "))),
    }
}
