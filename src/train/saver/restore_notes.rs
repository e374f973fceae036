//! Notes a failed restore adds when the missing names tell why they are missing: a model
//! built twice in one graph (`dense_1/kernel` missing, `dense/kernel` saved), and moving
//! averages of variables that were never averaged (`w/ExponentialMovingAverage` missing,
//! `w` saved).

/// `name` with one path component's `_N` suffix removed (`dense_1/kernel` → `dense/kernel`,
/// `w_2` → `w`), for each component that has one.
fn without_uniquifying_suffix(name: &str) -> Vec<String> {
    let parts: Vec<&str> = name.split('/').collect();
    let mut out = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        let Some((base, n)) = p.rsplit_once('_') else { continue };
        if base.is_empty() || n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) || n.starts_with('0') {
            continue;
        }
        let mut q = parts.clone();
        q[i] = base;
        out.push(q.join("/"));
    }
    out
}

/// When every missing name is a checkpoint name with a uniquifying suffix (`dense_1/kernel`
/// for `dense/kernel`): the note saying the model was probably built twice in one graph.
pub(super) fn rebuilt_model_note(missing: &[String], in_checkpoint: impl Fn(&str) -> bool) -> Option<String> {
    let mut example = None;
    for name in missing {
        let found = without_uniquifying_suffix(name).into_iter().find(|b| in_checkpoint(b))?;
        example.get_or_insert((name.clone(), found));
    }
    let (name, base) = example?;
    Some(format!(
        "\nEvery missing name is a checkpoint name with a suffix _1, _2, ... ({name} is missing, {base} is in the \
         checkpoint): the model was probably built twice in the same graph, so that the second build's variables \
         were renamed. Build the model once, or build it again in a new Graph (Graph::new()) before restoring."
    ))
}

/// For missing names `<var>/<suffix>` (a moving average, `w/ExponentialMovingAverage`)
/// whose `<var>` the checkpoint holds: the note saying those variables were never averaged.
pub(super) fn never_averaged_note(missing: &[String], in_checkpoint: impl Fn(&str) -> bool) -> Option<String> {
    let never: Vec<&str> = missing
        .iter()
        .filter_map(|n| n.strip_suffix("/ExponentialMovingAverage"))
        .filter(|base| in_checkpoint(base))
        .collect();
    if never.is_empty() {
        return None;
    }
    Some(format!(
        "\n{} variable(s) have no moving average in the checkpoint, only their own value: {}. They were never \
         averaged (ExponentialMovingAverage::apply was not given them) when the checkpoint was saved; pass \
         variables_to_restore the averaged variables only (moving_avg_variables), so that these are restored under \
         their own names.",
        never.len(),
        never.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes() {
        assert_eq!(without_uniquifying_suffix("dense_1/kernel"), vec!["dense/kernel"]);
        assert_eq!(without_uniquifying_suffix("w_2"), vec!["w"]);
        assert!(without_uniquifying_suffix("w_01").is_empty());
        assert!(without_uniquifying_suffix("conv2d/kernel").is_empty());
        let ck = |n: &str| n == "dense/kernel" || n == "w";
        let missing = vec!["dense_1/kernel".to_string(), "w_1".to_string()];
        assert!(rebuilt_model_note(&missing, ck).unwrap().contains("dense_1/kernel is missing, dense/kernel is in"));
        let partly = vec!["dense_1/kernel".to_string(), "other".to_string()];
        assert_eq!(rebuilt_model_note(&partly, ck), None);
    }
}
