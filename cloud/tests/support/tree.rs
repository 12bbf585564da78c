//! Reading trees and lists out of answers (menu trees, dept trees, pages of records).

use serde_json::Value as Json;

/// Every `code` in a menu tree (routes / buttons answers).
pub fn codes_in(tree: &Json) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &Json, out: &mut Vec<String>) {
        for n in v.as_array().into_iter().flatten() {
            if let Some(c) = n["code"].as_str() {
                out.push(c.to_owned());
            }
            walk(&n["children"], out);
        }
    }
    walk(tree, &mut out);
    out
}

/// Every `id` in a tree (nodes or tree lists).
pub fn ids_in(tree: &Json) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &Json, out: &mut Vec<String>) {
        for n in v.as_array().into_iter().flatten() {
            if let Some(c) = n["id"].as_str() {
                out.push(c.to_owned());
            }
            walk(&n["children"], out);
        }
    }
    walk(tree, &mut out);
    out
}

/// The `id` of each row of a list, in order ("" for a row without one); not recursive.
pub fn row_ids(rows: &Json) -> Vec<String> {
    rows.as_array()
        .into_iter()
        .flatten()
        .map(|r| r["id"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The node with `id` anywhere in a tree.
pub fn find_in<'a>(tree: &'a Json, id: &str) -> Option<&'a Json> {
    tree.as_array()?.iter().find_map(|n| {
        if n["id"] == id {
            Some(n)
        } else {
            find_in(&n["children"], id)
        }
    })
}
