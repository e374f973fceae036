//! Unique op names exactly as TensorFlow's `Graph.unique_name`: `add`, `add_1`, ...;
//! names are compared case-insensitively, and a uniquified name is itself marked used.

use rustc_hash::FxHashMap as HashMap;

/// The names in use in one graph, with the next suffix for each.
#[derive(Debug, Default, Clone)]
pub struct NameTable {
    in_use: HashMap<String, usize>,
    /// Bumped by every change, so a copy can tell whether the original changed since.
    version: u64,
}

impl NameTable {
    /// Returns `name` made unique (`name`, `name_1`, `name_2`, ...) and marks it used.
    /// `name` is the full name, including any scope prefix.
    pub fn unique(&mut self, name: &str) -> String {
        self.version += 1;
        let key = name.to_lowercase();
        let mut i = self.in_use.get(&key).copied().unwrap_or(0);
        self.in_use.insert(key.clone(), i + 1);
        if i == 0 {
            return name.to_string();
        }
        let mut candidate = key.clone();
        while self.in_use.contains_key(&candidate) {
            candidate = format!("{key}_{i}");
            i += 1;
        }
        self.in_use.insert(candidate, 1);
        format!("{name}_{}", i - 1)
    }

    /// Marks an exact name used (an op created with an explicit full name, or imported).
    pub fn mark_used(&mut self, name: &str) {
        self.version += 1;
        let key = name.to_lowercase();
        let e = self.in_use.entry(key).or_insert(0);
        *e = (*e).max(1);
        // every enclosing scope of an imported name is also in use, as in TensorFlow
        let mut prefix = name;
        while let Some(pos) = prefix.rfind('/') {
            prefix = &prefix[..pos];
            let e = self.in_use.entry(prefix.to_lowercase()).or_insert(0);
            *e = (*e).max(1);
        }
    }

    /// Makes room for `n` more names.
    pub fn reserve(&mut self, n: usize) {
        self.in_use.reserve(n);
    }

    /// A number that changes whenever the table does.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// True when `name` is in use.
    pub fn is_used(&self, name: &str) -> bool {
        self.in_use.contains_key(&name.to_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_follow_tensorflow() {
        let mut t = NameTable::default();
        assert_eq!(t.unique("add"), "add");
        assert_eq!(t.unique("add"), "add_1");
        assert_eq!(t.unique("add"), "add_2");
        assert_eq!(t.unique("add_1"), "add_1_1");
        assert_eq!(t.unique("Add"), "Add_3");
    }
}
