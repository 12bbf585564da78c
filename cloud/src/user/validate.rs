//! Reading and checking what a console submits for a user, before any database work: the
//! account, phone and e-mail rules, the loosely typed fields of the user form (ids as `"1,2"` or
//! `["1", 2]`, numbers as strings), and what a new account must carry.

use serde_json::{Map, Value as Json};

use super::model::{
    ACCOUNT_BAD, ACCOUNT_EMPTY, DEPT_EMPTY, EMAIL_BAD, OWNER_PASSWORD_SHORT, PASSWORD_EMPTY,
    PASSWORD_MISMATCH, PHONE_BAD, PHONE_EMPTY, REAL_NAME_EMPTY, ROLE_EMPTY, TOO_LONG, UserForm,
};
use crate::kernel::id::parse_id_list;
use crate::kernel::{ApiError, Id, time};

/// User names: 1-16 letters, digits, underscores or hyphens.
pub fn valid_account(s: &str) -> bool {
    (1..=16).contains(&s.chars().count())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Mobile numbers: 11 digits starting with 1.
pub fn valid_phone(s: &str) -> bool {
    s.len() == 11 && s.starts_with('1') && s.bytes().all(|b| b.is_ascii_digit())
}

pub fn valid_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !s.contains(' ')
}

fn invalid(key: &str) -> ApiError {
    ApiError::bad_request(format!("字段 {key} 的值无效"), format!("invalid value for {key}"))
}

/// Ids given as `"1,2"`, `["1", 2]` or a single number.
pub fn ids_of(body: &Map<String, Json>, key: &str) -> Result<Vec<Id>, ApiError> {
    let bad = || invalid(key);
    match body.get(key) {
        None | Some(Json::Null) => Ok(vec![]),
        Some(Json::String(s)) => parse_id_list(s).map_err(|_| bad()),
        Some(Json::Number(n)) => n.as_i64().map(|i| vec![Id(i)]).ok_or_else(bad),
        Some(Json::Array(items)) => items
            .iter()
            .map(|v| match v {
                Json::String(s) => s.trim().parse().map(Id).map_err(|_| bad()),
                Json::Number(n) => n.as_i64().map(Id).ok_or_else(bad),
                _ => Err(bad()),
            })
            .collect(),
        Some(_) => Err(bad()),
    }
}

/// A trimmed text field; `None` when absent, null or blank.
pub fn text_of(body: &Map<String, Json>, key: &str, max: usize) -> Result<Option<String>, ApiError> {
    let s = match body.get(key) {
        None | Some(Json::Null) => return Ok(None),
        Some(Json::String(s)) => s.trim().to_owned(),
        Some(Json::Number(n)) => n.to_string(),
        Some(_) => return Err(invalid(key)),
    };
    if s.chars().count() > max {
        return Err(ApiError::BadRequest(TOO_LONG));
    }
    Ok((!s.is_empty()).then_some(s))
}

pub fn int_of(body: &Map<String, Json>, key: &str) -> Result<Option<i64>, ApiError> {
    match body.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::Number(n)) => Ok(n.as_i64()),
        Some(Json::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Json::String(s)) => s.trim().parse().map(Some).map_err(|_| invalid(key)),
        Some(_) => Err(invalid(key)),
    }
}

pub fn body_object(body: Json) -> Result<Map<String, Json>, ApiError> {
    match body {
        Json::Object(m) => Ok(m),
        _ => Err(ApiError::bad_request(
            "请求内容必须是对象",
            "the request body must be a JSON object",
        )),
    }
}

/// The `id` of a submitted user; one that cannot be an id names no user ("not found").
pub fn body_id(body: &Map<String, Json>) -> Result<Option<Id>, ApiError> {
    match body.get("id") {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Json::String(s)) => s
            .trim()
            .parse()
            .map(|i| Some(Id(i)))
            .map_err(|_| ApiError::not_found()),
        Some(Json::Number(n)) => n.as_i64().map(|i| Some(Id(i))).ok_or_else(ApiError::not_found),
        Some(_) => Err(ApiError::not_found()),
    }
}

/// The user form's fields, each checked on its own; which are required depends on the act.
pub fn read_form(body: &Map<String, Json>) -> Result<UserForm, ApiError> {
    let account = text_of(body, "account", 45)?;
    if account.as_deref().is_some_and(|a| !valid_account(a)) {
        return Err(ApiError::BadRequest(ACCOUNT_BAD));
    }
    let phone = text_of(body, "phone", 45)?;
    if phone.as_deref().is_some_and(|p| !valid_phone(p)) {
        return Err(ApiError::BadRequest(PHONE_BAD));
    }
    let email = text_of(body, "email", 45)?;
    if email.as_deref().is_some_and(|e| !valid_email(e)) {
        return Err(ApiError::BadRequest(EMAIL_BAD));
    }
    let birthday = match text_of(body, "birthday", 32)? {
        None => None,
        Some(s) => Some(
            time::parse_ms(&s)
                .or_else(|| time::parse_ms(&format!("{s} 00:00:00")))
                .ok_or_else(|| ApiError::bad_request("生日格式错误", "invalid birthday"))?,
        ),
    };
    let sex = int_of(body, "sex")?;
    if sex.is_some_and(|s| !(1..=3).contains(&s)) {
        return Err(ApiError::bad_request("性别无效", "invalid sex"));
    }
    let present = |k: &str| body.get(k).is_some();
    Ok(UserForm {
        account,
        real_name: text_of(body, "realName", 20)?,
        name: text_of(body, "name", 20)?,
        phone,
        email,
        code: text_of(body, "code", 12)?,
        company_name: text_of(body, "companyName", 100)?,
        avatar: text_of(body, "avatar", 1000)?,
        sex,
        birthday,
        user_type: int_of(body, "userType")?,
        roles: present("roleId").then(|| ids_of(body, "roleId")).transpose()?,
        depts: present("deptId").then(|| ids_of(body, "deptId")).transpose()?,
        posts: present("postId").then(|| ids_of(body, "postId")).transpose()?,
    })
}

/// What a new tenant user must carry besides a valid form: an account, the password twice
/// alike, a real name, at least one role and one department. Answers the account and password.
pub fn new_user(body: &Map<String, Json>, form: &UserForm) -> Result<(String, String), ApiError> {
    let account = form.account.clone().ok_or(ApiError::BadRequest(ACCOUNT_EMPTY))?;
    let pw = text_of(body, "password", 64)?.ok_or(ApiError::BadRequest(PASSWORD_EMPTY))?;
    let pw2 = text_of(body, "password2", 64)?.ok_or(ApiError::BadRequest(PASSWORD_EMPTY))?;
    if pw != pw2 {
        return Err(ApiError::BadRequest(PASSWORD_MISMATCH));
    }
    if form.real_name.is_none() {
        return Err(ApiError::BadRequest(REAL_NAME_EMPTY));
    }
    if form.roles.as_ref().is_none_or(Vec::is_empty) {
        return Err(ApiError::BadRequest(ROLE_EMPTY));
    }
    if form.depts.as_ref().is_none_or(Vec::is_empty) {
        return Err(ApiError::BadRequest(DEPT_EMPTY));
    }
    Ok((account, pw))
}

/// An edit may leave a field out, but a real name, role list or department list it sends must
/// not be empty.
pub fn changed_user(body: &Map<String, Json>, form: &UserForm) -> Result<(), ApiError> {
    if body.contains_key("realName") && form.real_name.is_none() {
        return Err(ApiError::BadRequest(REAL_NAME_EMPTY));
    }
    if form.roles.as_ref().is_some_and(Vec::is_empty) {
        return Err(ApiError::BadRequest(ROLE_EMPTY));
    }
    if form.depts.as_ref().is_some_and(Vec::is_empty) {
        return Err(ApiError::BadRequest(DEPT_EMPTY));
    }
    Ok(())
}

/// An owner's password, when given, is longer than 6 characters.
pub fn owner_password(body: &Map<String, Json>) -> Result<Option<String>, ApiError> {
    let password = text_of(body, "password", 64)?;
    if password.as_deref().is_some_and(|pw| pw.chars().count() <= 6) {
        return Err(ApiError::BadRequest(OWNER_PASSWORD_SHORT));
    }
    Ok(password)
}

/// A new owner needs an account, a password and a phone number.
pub fn new_owner(form: &UserForm, password: Option<String>) -> Result<(String, String), ApiError> {
    let account = form.account.clone().ok_or(ApiError::BadRequest(ACCOUNT_EMPTY))?;
    let pw = password.ok_or(ApiError::BadRequest(PASSWORD_EMPTY))?;
    if form.phone.is_none() {
        return Err(ApiError::BadRequest(PHONE_EMPTY));
    }
    Ok((account, pw))
}

/// Ids without repeats, in id order (link tables hold each pair once).
pub fn distinct(ids: &[Id]) -> Vec<Id> {
    let mut unique = ids.to_vec();
    unique.sort_by_key(|i| i.0);
    unique.dedup();
    unique
}

/// `1,2,3`: how a list of ids is stored (`post_id`) and logged.
pub fn joined(ids: &[Id]) -> String {
    ids.iter().map(|i| i.0.to_string()).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::lang::Text;

    fn body(v: Json) -> Map<String, Json> {
        body_object(v).unwrap()
    }

    fn refused_with(r: Result<impl std::fmt::Debug, ApiError>, text: Text) {
        match r {
            Err(ApiError::BadRequest(t)) => assert_eq!(t, text),
            other => panic!("expected {text:?}, got {other:?}"),
        }
    }

    #[test]
    fn account_phone_and_email_rules() {
        assert!(valid_account("admin") && valid_account("a_b-1") && valid_account(&"x".repeat(16)));
        assert!(
            !valid_account("")
                && !valid_account(&"x".repeat(17))
                && !valid_account("a b")
                && !valid_account("管理")
        );
        assert!(valid_phone("13800138000"));
        assert!(!valid_phone("23800138000") && !valid_phone("1380013800") && !valid_phone("1380013800a"));
        assert!(
            valid_email("a@b.cn") && !valid_email("a@b") && !valid_email("@b.cn") && !valid_email("a b@c.d")
        );
    }

    #[test]
    fn ids_come_as_text_lists_arrays_or_numbers() {
        let b =
            body(serde_json::json!({"a": "1, 2", "b": ["3", 4], "c": 5, "d": null, "e": true, "f": ["x"]}));
        assert_eq!(ids_of(&b, "a").unwrap(), vec![Id(1), Id(2)]);
        assert_eq!(ids_of(&b, "b").unwrap(), vec![Id(3), Id(4)]);
        assert_eq!(ids_of(&b, "c").unwrap(), vec![Id(5)]);
        assert!(ids_of(&b, "d").unwrap().is_empty() && ids_of(&b, "missing").unwrap().is_empty());
        assert!(ids_of(&b, "e").is_err() && ids_of(&b, "f").is_err());
    }

    #[test]
    fn text_and_numbers_are_trimmed_and_bounded() {
        let b = body(serde_json::json!({"t": "  hi ", "blank": "  ", "n": 12, "o": {}, "s": " 3 "}));
        assert_eq!(text_of(&b, "t", 5).unwrap().as_deref(), Some("hi"));
        assert_eq!(text_of(&b, "blank", 5).unwrap(), None);
        assert_eq!(text_of(&b, "n", 5).unwrap().as_deref(), Some("12"));
        refused_with(text_of(&b, "t", 1), TOO_LONG);
        assert!(text_of(&b, "o", 5).is_err());
        assert_eq!(int_of(&b, "s").unwrap(), Some(3));
        assert_eq!(int_of(&b, "blank").unwrap(), None);
        assert!(int_of(&b, "t").is_err());
    }

    #[test]
    fn ids_of_a_body_that_name_no_user_are_not_found() {
        assert_eq!(
            body_id(&body(serde_json::json!({"id": " 7 "}))).unwrap(),
            Some(Id(7))
        );
        assert_eq!(body_id(&body(serde_json::json!({"id": ""}))).unwrap(), None);
        assert!(matches!(
            body_id(&body(serde_json::json!({"id": "x"}))),
            Err(ApiError::NotFound(_))
        ));
        assert!(body_object(serde_json::json!([1])).is_err());
    }

    #[test]
    fn the_form_checks_each_field_and_keeps_absent_lists_apart_from_empty_ones() {
        refused_with(
            read_form(&body(serde_json::json!({"account": "a b"}))),
            ACCOUNT_BAD,
        );
        refused_with(read_form(&body(serde_json::json!({"phone": "123"}))), PHONE_BAD);
        refused_with(read_form(&body(serde_json::json!({"email": "a@b"}))), EMAIL_BAD);
        assert!(read_form(&body(serde_json::json!({"sex": 4}))).is_err());
        assert!(read_form(&body(serde_json::json!({"birthday": "soon"}))).is_err());
        let f = read_form(&body(serde_json::json!({"roleId": "", "birthday": "2000-01-02"}))).unwrap();
        assert_eq!(f.roles, Some(vec![]));
        assert_eq!(f.depts, None);
        assert_eq!(f.birthday, time::parse_ms("2000-01-02 00:00:00"));
    }

    #[test]
    fn a_new_user_needs_matching_passwords_a_name_a_role_and_a_department() {
        let full = serde_json::json!({"account": "ann", "password": "secret1", "password2": "secret1",
            "realName": "Ann", "roleId": "1", "deptId": [2]});
        let check = |patch: Json| {
            let mut b = body(full.clone());
            for (k, v) in body(patch) {
                b.insert(k, v);
            }
            let form = read_form(&b)?;
            new_user(&b, &form)
        };
        assert_eq!(
            check(serde_json::json!({})).unwrap(),
            ("ann".to_owned(), "secret1".to_owned())
        );
        refused_with(check(serde_json::json!({"account": null})), ACCOUNT_EMPTY);
        refused_with(
            check(serde_json::json!({"password2": "other"})),
            PASSWORD_MISMATCH,
        );
        refused_with(check(serde_json::json!({"password": " "})), PASSWORD_EMPTY);
        refused_with(check(serde_json::json!({"realName": ""})), REAL_NAME_EMPTY);
        refused_with(check(serde_json::json!({"roleId": []})), ROLE_EMPTY);
        refused_with(check(serde_json::json!({"deptId": null})), DEPT_EMPTY);
    }

    #[test]
    fn an_edit_may_omit_fields_but_not_empty_them() {
        let ok = body(serde_json::json!({"phone": "13800138000"}));
        assert!(changed_user(&ok, &read_form(&ok).unwrap()).is_ok());
        let b = body(serde_json::json!({"realName": " "}));
        refused_with(changed_user(&b, &read_form(&b).unwrap()), REAL_NAME_EMPTY);
        let b = body(serde_json::json!({"deptId": ""}));
        refused_with(changed_user(&b, &read_form(&b).unwrap()), DEPT_EMPTY);
    }

    #[test]
    fn owners_need_a_long_password_and_a_phone() {
        refused_with(
            owner_password(&body(serde_json::json!({"password": "123456"}))),
            OWNER_PASSWORD_SHORT,
        );
        assert_eq!(
            owner_password(&body(serde_json::json!({"password": "1234567"})))
                .unwrap()
                .as_deref(),
            Some("1234567")
        );
        assert_eq!(owner_password(&body(serde_json::json!({}))).unwrap(), None);
        let form = read_form(&body(serde_json::json!({"account": "own"}))).unwrap();
        refused_with(new_owner(&form, None), PASSWORD_EMPTY);
        refused_with(new_owner(&form, Some("1234567".into())), PHONE_EMPTY);
    }

    #[test]
    fn id_lists_are_deduplicated_and_joined_in_order() {
        assert_eq!(distinct(&[Id(3), Id(1), Id(3)]), vec![Id(1), Id(3)]);
        assert_eq!(joined(&[Id(2), Id(10)]), "2,10");
        assert_eq!(joined(&[]), "");
    }
}
