//! The conditions of sequence flows and the `${...}` references of user tasks: a small expression
//! language over the instance's variables (documented in `docs/workflow.md`).
//!
//! ```text
//! expr    := or
//! or      := and (("||" | "or") and)*
//! and     := not (("&&" | "and") not)*
//! not     := ("!" | "not") not | compare
//! compare := primary (("==" | "!=" | "<" | "<=" | ">" | ">=" | eq ne lt le gt ge) primary)?
//! primary := number | 'text' | "text" | true | false | null | name("." name)* | "(" expr ")"
//! ```
//!
//! Parsed once at deploy (a malformed condition refuses the definition), evaluated on the JSON
//! variables. A missing variable is `null`. Numbers compare numerically, also against a text
//! that reads as a number (form fields often arrive as text); other values compare equal only
//! when they are the same value; ordering is defined for numbers and for texts only.

use std::cmp::Ordering;

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Lit(Value),
    Var(Vec<String>),
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Cmp(Op, Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ExprError(pub String);

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Str(String),
    Name(String),
    Sym(&'static str),
}

/// The text inside `${...}` when `s` is wrapped so, else `s` itself (trimmed).
pub fn unwrap(s: &str) -> &str {
    let t = s.trim();
    t.strip_prefix("${")
        .or_else(|| t.strip_prefix("#{"))
        .and_then(|r| r.strip_suffix('}'))
        .map(str::trim)
        .unwrap_or(t)
}

fn lex(s: &str) -> Result<Vec<Tok>, ExprError> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
        if let Some(sym) = ["==", "!=", "<=", ">=", "&&", "||"]
            .into_iter()
            .find(|s| *s == two)
        {
            out.push(Tok::Sym(sym));
            i += 2;
            continue;
        }
        if let Some(sym) = ["<", ">", "!", "(", ")", "."]
            .into_iter()
            .find(|s| s.starts_with(c))
        {
            out.push(Tok::Sym(sym));
            i += 1;
            continue;
        }
        if c == '\'' || c == '"' {
            let mut text = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    None => return Err(ExprError(format!("unterminated text in `{s}`"))),
                    Some(&q) if q == c => break,
                    Some('\\') if i + 1 < chars.len() => {
                        text.push(chars[i + 1]);
                        i += 2;
                        continue;
                    }
                    Some(&ch) => text.push(ch),
                }
                i += 1;
            }
            i += 1;
            out.push(Tok::Str(text));
            continue;
        }
        if c.is_ascii_digit() || (c == '-' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) {
            let start = i;
            i += 1;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            let n: String = chars[start..i].iter().collect();
            out.push(Tok::Num(
                n.parse().map_err(|_| ExprError(format!("bad number `{n}`")))?,
            ));
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Tok::Name(chars[start..i].iter().collect()));
            continue;
        }
        return Err(ExprError(format!("unexpected `{c}` in `{s}`")));
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn eat_sym(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Sym(s)) if *s == sym) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn eat_word(&mut self, word: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Name(n)) if n == word) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<Expr, ExprError> {
        let mut left = self.and()?;
        while self.eat_sym("||") || self.eat_word("or") {
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, ExprError> {
        let mut left = self.not()?;
        while self.eat_sym("&&") || self.eat_word("and") {
            left = Expr::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Expr, ExprError> {
        if self.eat_sym("!") || self.eat_word("not") {
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.compare()
    }

    fn compare(&mut self) -> Result<Expr, ExprError> {
        let left = self.primary()?;
        let ops = [
            ("==", "eq", Op::Eq),
            ("!=", "ne", Op::Ne),
            ("<=", "le", Op::Le),
            (">=", "ge", Op::Ge),
            ("<", "lt", Op::Lt),
            (">", "gt", Op::Gt),
        ];
        for (sym, word, op) in ops {
            if self.eat_sym(sym) || self.eat_word(word) {
                return Ok(Expr::Cmp(op, Box::new(left), Box::new(self.primary()?)));
            }
        }
        Ok(left)
    }

    fn primary(&mut self) -> Result<Expr, ExprError> {
        let tok = self
            .toks
            .get(self.at)
            .cloned()
            .ok_or_else(|| ExprError("the expression ends too early".into()))?;
        self.at += 1;
        match tok {
            Tok::Num(n) => Ok(Expr::Lit(
                serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number),
            )),
            Tok::Str(s) => Ok(Expr::Lit(Value::String(s))),
            Tok::Sym("(") => {
                let e = self.or()?;
                if !self.eat_sym(")") {
                    return Err(ExprError("a `(` is not closed".into()));
                }
                Ok(e)
            }
            Tok::Name(n) => match n.as_str() {
                "true" => Ok(Expr::Lit(Value::Bool(true))),
                "false" => Ok(Expr::Lit(Value::Bool(false))),
                "null" => Ok(Expr::Lit(Value::Null)),
                _ => {
                    let mut path = vec![n];
                    while self.eat_sym(".") {
                        match self.toks.get(self.at).cloned() {
                            Some(Tok::Name(m)) => {
                                self.at += 1;
                                path.push(m);
                            }
                            _ => return Err(ExprError("a name must follow `.`".into())),
                        }
                    }
                    Ok(Expr::Var(path))
                }
            },
            Tok::Sym(s) => Err(ExprError(format!("unexpected `{s}`"))),
        }
    }
}

/// Parses `s` (with or without `${...}`).
pub fn parse(s: &str) -> Result<Expr, ExprError> {
    let body = unwrap(s);
    if body.is_empty() {
        return Err(ExprError("the expression is empty".into()));
    }
    let mut p = Parser {
        toks: lex(body)?,
        at: 0,
    };
    let e = p.or()?;
    if p.at != p.toks.len() {
        return Err(ExprError(format!(
            "unexpected text after the expression in `{body}`"
        )));
    }
    Ok(e)
}

fn lookup<'a>(vars: &'a Map<String, Value>, path: &[String]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    let mut v = vars.get(first)?;
    for key in rest {
        v = v.get(key)?;
    }
    Some(v)
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Null => false,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty() && s != "false" && s != "0",
        Value::Array(a) => !a.is_empty(),
        Value::Object(_) => true,
    }
}

fn order(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::String(x), Value::String(y)) => match (number(a), number(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            _ => Some(x.cmp(y)),
        },
        _ => number(a)?.partial_cmp(&number(b)?),
    }
}

fn equal(a: &Value, b: &Value) -> bool {
    match (number(a), number(b)) {
        (Some(x), Some(y)) if !(a.is_string() && b.is_string()) => x == y,
        _ => match (a, b) {
            (Value::Bool(x), Value::String(s)) | (Value::String(s), Value::Bool(x)) => {
                s == if *x { "true" } else { "false" }
            }
            _ => a == b,
        },
    }
}

fn value(e: &Expr, vars: &Map<String, Value>) -> Value {
    match e {
        Expr::Lit(v) => v.clone(),
        Expr::Var(path) => lookup(vars, path).cloned().unwrap_or(Value::Null),
        other => Value::Bool(eval(other, vars)),
    }
}

/// Evaluates `e` as a condition.
pub fn eval(e: &Expr, vars: &Map<String, Value>) -> bool {
    match e {
        Expr::Lit(_) | Expr::Var(_) => truthy(&value(e, vars)),
        Expr::Not(x) => !eval(x, vars),
        Expr::And(a, b) => eval(a, vars) && eval(b, vars),
        Expr::Or(a, b) => eval(a, vars) || eval(b, vars),
        Expr::Cmp(op, a, b) => {
            let (a, b) = (value(a, vars), value(b, vars));
            match op {
                Op::Eq => equal(&a, &b),
                Op::Ne => !equal(&a, &b),
                Op::Lt => order(&a, &b) == Some(Ordering::Less),
                Op::Le => matches!(order(&a, &b), Some(Ordering::Less | Ordering::Equal)),
                Op::Gt => order(&a, &b) == Some(Ordering::Greater),
                Op::Ge => matches!(order(&a, &b), Some(Ordering::Greater | Ordering::Equal)),
            }
        }
    }
}

/// The variable a `${name}` reference names (a task's assignee or candidates), if `s` is one.
pub fn reference(s: &str) -> Option<Vec<String>> {
    let t = s.trim();
    if !(t.starts_with("${") || t.starts_with("#{")) {
        return None;
    }
    match parse(t) {
        Ok(Expr::Var(path)) => Some(path),
        _ => None,
    }
}

/// Reads variable `path`.
pub fn get<'a>(vars: &'a Map<String, Value>, path: &[String]) -> Option<&'a Value> {
    lookup(vars, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(e: &str, vars: Value) -> bool {
        let Value::Object(m) = vars else { panic!("vars") };
        eval(&parse(e).expect(e), &m)
    }

    #[test]
    fn compares_numbers_texts_and_booleans() {
        assert!(check("${level >= 3}", json!({"level": 3})));
        assert!(!check("${level >= 3}", json!({"level": 2})));
        assert!(check("${level gt 2 and level lt 4}", json!({"level": "3"})));
        assert!(check("${approved == true}", json!({"approved": true})));
        assert!(check("${approved == true}", json!({"approved": "true"})));
        assert!(check("${!approved}", json!({"approved": false})));
        assert!(check("${kind == 'fault'}", json!({"kind": "fault"})));
        assert!(check("${kind != \"fault\"}", json!({"kind": "other"})));
        assert!(check("${a.b == 1.5}", json!({"a": {"b": 1.5}})));
        assert!(check(
            "${days > 3 || (urgent && !late)}",
            json!({"days": 1, "urgent": true, "late": false})
        ));
    }

    #[test]
    fn a_missing_variable_is_null_and_orders_with_nothing() {
        assert!(check("${x == null}", json!({})));
        assert!(!check("${x > 0}", json!({})));
        assert!(!check("${x < 0}", json!({})));
        assert!(!check("${x}", json!({})));
    }

    #[test]
    fn refuses_malformed_expressions() {
        for bad in ["${}", "${a ==}", "${(a}", "${a b}", "${'x}", "${a # b}", "${a.}"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn references_name_a_variable() {
        assert_eq!(reference("${manager}"), Some(vec!["manager".to_string()]));
        assert_eq!(reference("12"), None);
        assert_eq!(reference("${a == 1}"), None);
    }
}
