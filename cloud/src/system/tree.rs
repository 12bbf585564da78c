//! The tree shapes of the admin screens (wire contract): selector nodes
//! `{id, parentId, title, key, value, hasChildren, children}` and tree lists (full entities with
//! `children` and `hasChildren`), plus id lists as the console sends them.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value as Json;
use utoipa::ToSchema;

use crate::kernel::id::parse_id_list;
use crate::kernel::lang::Text;
use crate::kernel::{ApiError, Id};

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TreeNode {
    pub id: Id,
    pub parent_id: Id,
    pub title: String,
    pub key: Id,
    pub value: Id,
    pub has_children: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schema(no_recursion)]
    pub children: Vec<TreeNode>,
}

impl TreeNode {
    pub fn leaf(id: Id, parent_id: Id, title: String) -> Self {
        TreeNode {
            id,
            parent_id,
            title,
            key: id,
            value: id,
            has_children: false,
            children: Vec::new(),
        }
    }
}

/// Links `(id, parent id, item)` triples, given in display order, into a forest. An item whose
/// parent is not among them becomes a root, so a filtered list still shows every match. Items
/// caught in a parent cycle (bad data) are left out rather than looped over.
pub fn forest<K, T, N>(items: Vec<(K, K, T)>, make: &mut impl FnMut(K, K, T, Vec<N>) -> N) -> Vec<N>
where
    K: Eq + std::hash::Hash + Clone,
{
    let ids: HashSet<K> = items.iter().map(|(id, _, _)| id.clone()).collect();
    let mut groups: HashMap<K, Vec<(K, K, T)>> = HashMap::new();
    let mut roots = Vec::new();
    for item in items {
        if item.1 != item.0 && ids.contains(&item.1) {
            groups.entry(item.1.clone()).or_default().push(item);
        } else {
            roots.push(item);
        }
    }
    fn build<K: Eq + std::hash::Hash + Clone, T, N>(
        list: Vec<(K, K, T)>,
        groups: &mut HashMap<K, Vec<(K, K, T)>>,
        make: &mut impl FnMut(K, K, T, Vec<N>) -> N,
    ) -> Vec<N> {
        list.into_iter()
            .map(|(id, parent, item)| {
                let kids = groups.remove(&id).unwrap_or_default();
                let children = build(kids, groups, make);
                make(id, parent, item, children)
            })
            .collect()
    }
    build(roots, &mut groups, make)
}

/// Selector nodes from `(id, parent id, title)` in display order.
pub fn nodes(items: Vec<(Id, Id, String)>) -> Vec<TreeNode> {
    forest(items, &mut |id, parent, title, children: Vec<TreeNode>| {
        TreeNode {
            has_children: !children.is_empty(),
            children,
            ..TreeNode::leaf(id, parent, title)
        }
    })
}

/// Ids as the console sends them in JSON: an array of strings or numbers, or one comma-joined
/// string. Duplicates are dropped, first occurrence kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdList(pub Vec<Id>);

impl<'de> Deserialize<'de> for IdList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            List(Vec<Id>),
            Joined(String),
            Nothing(()),
        }
        let ids = match Raw::deserialize(d)? {
            Raw::List(ids) => ids,
            Raw::Joined(s) => parse_id_list(&s).map_err(serde::de::Error::custom)?,
            Raw::Nothing(()) => Vec::new(),
        };
        Ok(IdList(dedup(ids)))
    }
}

impl utoipa::PartialSchema for IdList {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ArrayBuilder::new()
            .items(<Id as utoipa::PartialSchema>::schema())
            .description(Some("Ids (strings); a comma-joined string is accepted too"))
            .into()
    }
}
impl utoipa::ToSchema for IdList {}

pub fn dedup(ids: Vec<Id>) -> Vec<Id> {
    let mut seen = HashSet::new();
    ids.into_iter().filter(|id| seen.insert(*id)).collect()
}

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

/// Nests flat nodes (in display order) under their parents; a node whose parent is not among
/// them is a root. For trees keyed by text (region codes) rather than ids.
pub fn nest_nodes(flat: Vec<Node>) -> Vec<Node> {
    let items = flat
        .into_iter()
        .map(|n| (n.id.clone(), n.parent_id.clone(), n))
        .collect();
    forest(items, &mut |_, _, mut n: Node, children: Vec<Node>| {
        n.has_children = !children.is_empty();
        n.children = children;
        n
    })
}

/// Nests entity rows (JSON objects with `id` and `parentId` strings) into a tree list: every row
/// gets `children` (possibly empty) and `hasChildren`.
pub fn nest_rows(flat: Vec<Json>) -> Vec<Json> {
    let key = |row: &Json, name: &str| row.get(name).and_then(Json::as_str).unwrap_or("").to_owned();
    let items = flat
        .into_iter()
        .map(|r| (key(&r, "id"), key(&r, "parentId"), r))
        .collect();
    forest(items, &mut |_, _, mut r: Json, children: Vec<Json>| {
        if let Json::Object(map) = &mut r {
            map.insert("hasChildren".into(), Json::Bool(!children.is_empty()));
            map.insert("children".into(), Json::Array(children));
        }
        r
    })
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
    fn forest_keeps_order_and_orphans_become_roots() {
        let items = vec![
            (Id(1), Id(0), "a".to_owned()),
            (Id(3), Id(1), "c".to_owned()),
            (Id(2), Id(1), "b".to_owned()),
            (Id(4), Id(9), "orphan".to_owned()),
            (Id(5), Id(6), "cycle".to_owned()),
            (Id(6), Id(5), "cycle".to_owned()),
        ];
        let tree = nodes(items);
        assert_eq!(tree.len(), 2);
        assert_eq!(tree[0].title, "a");
        assert!(tree[0].has_children);
        let kids: Vec<i64> = tree[0].children.iter().map(|c| c.id.0).collect();
        assert_eq!(kids, vec![3, 2]);
        assert_eq!(tree[1].title, "orphan");
        assert!(!tree[1].has_children);
        let json = serde_json::to_value(&tree[1]).unwrap();
        assert_eq!(json["key"], "4");
        assert!(json.get("children").is_none());
    }

    #[test]
    fn id_lists_from_arrays_strings_or_null() {
        let l: IdList = serde_json::from_str(r#"["1", 2, "1"]"#).unwrap();
        assert_eq!(l.0, vec![Id(1), Id(2)]);
        let l: IdList = serde_json::from_str(r#""3,4""#).unwrap();
        assert_eq!(l.0, vec![Id(3), Id(4)]);
        let l: IdList = serde_json::from_str("null").unwrap();
        assert!(l.0.is_empty());
        assert!(serde_json::from_str::<IdList>(r#"["x"]"#).is_err());
    }

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
