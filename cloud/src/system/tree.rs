//! The tree shapes of the admin screens (wire contract): selector nodes
//! `{id, parentId, title, key, value, hasChildren, children}` and tree lists (full entities with
//! `children` and `hasChildren`), plus id lists as the console sends them.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value as Json};
use utoipa::ToSchema;

use crate::kernel::Id;
use crate::kernel::id::parse_id_list;

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
pub fn forest<T, N>(items: Vec<(Id, Id, T)>, make: &mut impl FnMut(Id, Id, T, Vec<N>) -> N) -> Vec<N> {
    let ids: HashSet<Id> = items.iter().map(|(id, _, _)| *id).collect();
    let mut groups: HashMap<Id, Vec<(Id, Id, T)>> = HashMap::new();
    let mut roots = Vec::new();
    for item in items {
        if item.1 != item.0 && ids.contains(&item.1) {
            groups.entry(item.1).or_default().push(item);
        } else {
            roots.push(item);
        }
    }
    fn build<T, N>(
        list: Vec<(Id, Id, T)>,
        groups: &mut HashMap<Id, Vec<(Id, Id, T)>>,
        make: &mut impl FnMut(Id, Id, T, Vec<N>) -> N,
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

/// A tree list from entity objects in display order (each gets `children` and `hasChildren`).
pub fn entity_list(items: Vec<(Id, Id, Map<String, Json>)>) -> Vec<Json> {
    forest(items, &mut |_, _, mut entity, children: Vec<Json>| {
        entity.insert("hasChildren".into(), Json::Bool(!children.is_empty()));
        entity.insert("children".into(), Json::Array(children));
        Json::Object(entity)
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
