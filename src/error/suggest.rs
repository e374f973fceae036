//! "Did you mean ...?": the existing names closest to a name that was not found (a node of
//! a graph, a checkpoint key, an `input_map` key, a variable or scope of an assignment
//! map). The one place the rule lives, for every error that suggests names.

/// The names among `candidates` closest to `name`: those ending in `/<name>` (the same
/// name under a prefix, as `import_graph_def` adds one; up to 4), else the (up to 3)
/// names within an edit distance of a third of `name`'s length (at least 1: `probs` for
/// `prob`; two neighbouring letters swapped count as one edit: `batch` for `bacth`),
/// nearest first. Empty when there are none.
pub fn closest_names<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str> + Clone) -> Vec<&'a str> {
    let tail = format!("/{name}");
    let prefixed: Vec<&str> = candidates.clone().into_iter().filter(|c| c.ends_with(&tail)).take(4).collect();
    if !prefixed.is_empty() {
        return prefixed;
    }
    let limit = (name.chars().count() / 3).max(1);
    let mut near: Vec<(usize, &str)> = candidates
        .into_iter()
        .map(|c| (strsim::osa_distance(name, c), c))
        .filter(|&(d, c)| d <= limit && c != name)
        .collect();
    near.sort();
    near.dedup();
    near.into_iter().take(3).map(|(_, c)| c).collect()
}

/// ` Did you mean 'x'?` or ` Did you mean one of 'x', 'y'?` for `names` (each with `suffix`
/// appended, as `:0` for a tensor); empty for none. Appended to a not-found message.
pub fn did_you_mean(names: &[&str], suffix: &str) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}{suffix}'")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => format!(" Did you mean {one}?"),
        more => format!(" Did you mean one of {}?", more.join(", ")),
    }
}

/// [`did_you_mean`] of the [`closest_names`] to `name` among `candidates`.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str> + Clone) -> String {
    did_you_mean(&closest_names(name, candidates), "")
}
