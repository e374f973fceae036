//! Reading the `manifest.json` of a generated model (`scripts/gen_models.py`) in the timing
//! examples, without a JSON dependency.

/// The string value of `"key": "value"` in the manifest's JSON (its names hold no quotes).
pub fn manifest_name(json: &str, key: &str) -> Option<String> {
    let at = json.find(&format!("\"{key}\""))? + key.len() + 2;
    let rest = &json[at..];
    let start = rest.find('"')? + 1;
    let end = start + rest[start..].find('"')?;
    Some(rest[start..end].to_string())
}
