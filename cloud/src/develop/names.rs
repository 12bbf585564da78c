//! The names lists show beside the ids rows hold.

/// Adds `{name_field}` to each row: the name its `{id_field}` points at among `names` (the live
/// rows of the referenced table), or null.
pub fn add_names(rows: &mut [serde_json::Value], id_field: &str, name_field: &str, names: &[(i64, String)]) {
    for row in rows.iter_mut() {
        let id = row[id_field].as_str().and_then(|s| s.parse::<i64>().ok());
        let name = names.iter().find(|(n, _)| Some(*n) == id).map(|(_, n)| n.clone());
        if let Some(map) = row.as_object_mut() {
            map.insert(
                name_field.into(),
                name.map(serde_json::Value::String).unwrap_or_default(),
            );
        }
    }
}
