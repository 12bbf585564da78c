//! The tree shapes of the admin base (contract "Shapes used everywhere"): tree nodes
//! `{id, parentId, title, key, value, hasChildren, children}` for selectors and lazy trees, and
//! tree lists (full entities nested through `children`, each with `hasChildren`).

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::Value as Json;
use utoipa::ToSchema;

use crate::kernel::ApiError;
use crate::kernel::lang::Text;

pub const HAS_CHILDREN: Text = Text::new("请先删除子节点", "Delete the child items first");

/// One node of a selector tree. Lazy endpoints leave `children` empty and say `hasChildren`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    pub id: String,
    pub parent_id: String,
    pub title: String,
    pub key: String,
    pub value: String,
    pub has_children: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schema(no_recursion)]
    pub children: Vec<Node>,
}

impl Node {
    /// A node whose key and value are its id.
    pub fn new(id: impl Into<String>, parent_id: impl Into<String>, title: impl Into<String>) -> Node {
        let id = id.into();
        Node {
            key: id.clone(),
            value: id.clone(),
            id,
            parent_id: parent_id.into(),
            title: title.into(),
            has_children: false,
            children: Vec::new(),
        }
    }
}

/// Nests flat nodes (already in display order) under their parents; a node whose parent is not
/// among them is a root.
pub fn nest_nodes(flat: Vec<Node>) -> Vec<Node> {
    let ids: HashSet<String> = flat.iter().map(|n| n.id.clone()).collect();
    let mut by_parent: HashMap<String, Vec<Node>> = HashMap::new();
    let mut roots = Vec::new();
    for n in flat {
        if n.parent_id != n.id && ids.contains(&n.parent_id) {
            by_parent.entry(n.parent_id.clone()).or_default().push(n);
        } else {
            roots.push(n);
        }
    }
    fn attach(mut n: Node, by_parent: &mut HashMap<String, Vec<Node>>) -> Node {
        let kids = by_parent.remove(&n.id).unwrap_or_default();
        n.children = kids.into_iter().map(|k| attach(k, by_parent)).collect();
        n.has_children = !n.children.is_empty();
        n
    }
    roots.into_iter().map(|n| attach(n, &mut by_parent)).collect()
}

/// Nests entity rows (JSON objects with `id` and `parentId` strings) into a tree list: every row
/// gets `children` (possibly empty) and `hasChildren`.
pub fn nest_rows(flat: Vec<Json>) -> Vec<Json> {
    let key = |row: &Json, name: &str| row.get(name).and_then(Json::as_str).unwrap_or("").to_owned();
    let ids: HashSet<String> = flat.iter().map(|r| key(r, "id")).collect();
    let mut by_parent: HashMap<String, Vec<Json>> = HashMap::new();
    let mut roots = Vec::new();
    for r in flat {
        let (id, parent) = (key(&r, "id"), key(&r, "parentId"));
        if parent != id && ids.contains(&parent) {
            by_parent.entry(parent).or_default().push(r);
        } else {
            roots.push(r);
        }
    }
    fn attach(mut r: Json, by_parent: &mut HashMap<String, Vec<Json>>) -> Json {
        let id = r.get("id").and_then(Json::as_str).unwrap_or("").to_owned();
        let kids: Vec<Json> = by_parent
            .remove(&id)
            .unwrap_or_default()
            .into_iter()
            .map(|k| attach(k, by_parent))
            .collect();
        if let Json::Object(map) = &mut r {
            map.insert("hasChildren".into(), Json::Bool(!kids.is_empty()));
            map.insert("children".into(), Json::Array(kids));
        }
        r
    }
    roots.into_iter().map(|r| attach(r, &mut by_parent)).collect()
}

/// Marks each row's `hasChildren` from the set of ids that have children.
pub fn mark_has_children(rows: &mut [Json], parents: &HashSet<i64>) {
    for r in rows {
        let has = r
            .get("id")
            .and_then(Json::as_str)
            .and_then(|s| s.parse::<i64>().ok())
            .is_some_and(|id| parents.contains(&id));
        if let Json::Object(map) = r {
            map.insert("hasChildren".into(), Json::Bool(has));
        }
    }
}

/// An optional id query parameter where the console may send an empty value.
pub fn optional_id(name: &str, raw: Option<&str>) -> Result<Option<i64>, ApiError> {
    match raw.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(s) => s.parse::<i64>().map(Some).map_err(|_| {
            ApiError::bad_request(format!("参数 {name} 无效：{s}"), format!("invalid {name}: {s}"))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nodes_nest_under_present_parents_and_keep_order() {
        let flat = vec![
            Node::new("1", "0", "a"),
            Node::new("2", "1", "b"),
            Node::new("3", "1", "c"),
            Node::new("4", "9", "orphan"),
        ];
        let tree = nest_nodes(flat);
        assert_eq!(tree.len(), 2);
        assert_eq!(tree[0].children.len(), 2);
        assert!(tree[0].has_children);
        assert_eq!(tree[0].children[1].title, "c");
        assert!(!tree[1].has_children);
        let v = serde_json::to_value(&tree[1]).unwrap();
        assert!(v.get("children").is_none(), "leaves omit children: {v}");
    }

    #[test]
    fn rows_nest_with_children_arrays() {
        let rows = vec![
            json!({"id": "1", "parentId": "0"}),
            json!({"id": "2", "parentId": "1"}),
        ];
        let tree = nest_rows(rows);
        assert_eq!(tree.len(), 1);
        assert_eq!(tree[0]["hasChildren"], true);
        assert_eq!(tree[0]["children"][0]["children"], json!([]));
        assert_eq!(tree[0]["children"][0]["hasChildren"], false);
    }
}
