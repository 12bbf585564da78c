//! What the user administration screens send and receive: the user record as lists and details
//! show it, the query parameters of the acts on selected users, the validated user form, and the
//! messages of refusals.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::kernel::lang::Text;
use crate::kernel::time::Timestamp;
use crate::kernel::{Id, time};

pub const ACCOUNT_EMPTY: Text = Text::new("请输入账号", "Please enter the account");
pub const ACCOUNT_BAD: Text = Text::new("请输入正确的用户名", "Please enter a valid user name");
pub const ACCOUNT_TAKEN: Text = Text::new("当前用户已存在", "This account already exists");
pub const PASSWORD_EMPTY: Text = Text::new("请输入密码", "Please enter the password");
pub const PASSWORD_MISMATCH: Text = Text::new("两次密码输入不一致", "The two passwords do not match");
pub const OWNER_PASSWORD_SHORT: Text = Text::new(
    "密码长度必须大于6位",
    "The password must be longer than 6 characters",
);
pub const REAL_NAME_EMPTY: Text = Text::new("请输入用户姓名", "Please enter the user's name");
pub const ROLE_EMPTY: Text = Text::new("请选择所属角色", "Please select a role");
pub const DEPT_EMPTY: Text = Text::new("请选择所属部门", "Please select a department");
pub const PHONE_EMPTY: Text = Text::new("请输入手机号码", "Please enter the mobile number");
pub const PHONE_BAD: Text = Text::new(
    "请输入正确的11位手机号码",
    "Please enter a valid 11-digit mobile number",
);
pub const EMAIL_BAD: Text = Text::new("请输入正确的邮箱", "Please enter a valid e-mail address");
pub const TOO_LONG: Text = Text::new("输入内容过长", "The text is too long");
pub const NO_SUCH_ROLE: Text = Text::new("角色不存在", "No such role");
pub const NO_SUCH_DEPT: Text = Text::new("部门不存在", "No such department");
pub const NO_SUCH_POST: Text = Text::new("岗位不存在", "No such post");
pub const QUOTA: Text = Text::new(
    "当前租户已到最大账号额度",
    "The tenant has reached its account limit",
);

/// A user row as the administration screens read it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct AccountRow {
    pub id: Id,
    pub tenant_id: Option<String>,
    pub account: Option<String>,
    pub name: Option<String>,
    pub real_name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub birthday: Option<i64>,
    pub sex: Option<i64>,
    pub post_id: Option<String>,
    pub user_type: i64,
    pub status: i64,
    pub company_name: Option<String>,
    pub avatar: Option<String>,
    pub code: Option<String>,
    pub locked_until: Option<i64>,
    pub create_time: i64,
}

pub const ACCOUNT_COLUMNS: &str = "id, tenant_id, account, name, real_name, email, phone, birthday, sex, \
                                   post_id, user_type, status, company_name, avatar, code, locked_until, \
                                   create_time";

/// The names of a user's roles, departments and posts, each list comma-joined.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Memberships {
    pub role_id: String,
    pub role_name: String,
    pub dept_id: String,
    pub dept_name: String,
    pub post_name: String,
}

/// A user with role, department and post names (`page`, `pageOwner`, `detail`). Fields are in
/// alphabetical order: the order these answers have always had on the wire.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserRecord {
    pub account: Option<String>,
    pub avatar: Option<String>,
    pub birthday: Option<Timestamp>,
    pub code: Option<String>,
    pub company_name: Option<String>,
    pub create_time: Timestamp,
    /// Comma-joined department ids.
    pub dept_id: String,
    pub dept_name: String,
    pub email: Option<String>,
    pub id: Id,
    /// Whether too many wrong passwords keep the account locked now.
    pub locked: bool,
    pub name: Option<String>,
    pub phone: Option<String>,
    /// Comma-joined post ids.
    pub post_id: Option<String>,
    pub post_name: String,
    pub real_name: Option<String>,
    /// Comma-joined role ids.
    pub role_id: String,
    pub role_name: String,
    pub sex: Option<i64>,
    pub status: i64,
    pub tenant_id: Option<String>,
    pub user_type: i64,
}

impl UserRecord {
    pub fn new(row: AccountRow, names: Memberships, now_ms: i64) -> Self {
        UserRecord {
            account: row.account,
            avatar: row.avatar,
            birthday: row.birthday.map(Timestamp),
            code: row.code,
            company_name: row.company_name,
            create_time: Timestamp(row.create_time),
            dept_id: names.dept_id,
            dept_name: names.dept_name,
            email: row.email,
            id: row.id,
            locked: row.locked_until.is_some_and(|t| t > now_ms),
            name: row.name,
            phone: row.phone,
            post_id: row.post_id,
            post_name: names.post_name,
            real_name: row.real_name,
            role_id: names.role_id,
            role_name: names.role_name,
            sex: row.sex,
            status: row.status,
            tenant_id: row.tenant_id,
            user_type: row.user_type,
        }
    }

    pub fn of(row: AccountRow, names: Memberships) -> Self {
        Self::new(row, names, time::now_ms())
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StaffMember {
    pub id: Id,
    pub account: String,
    pub real_name: Option<String>,
    pub phone: Option<String>,
    /// Names of all the member's roles, comma-joined.
    pub role_name: String,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct StaffRow {
    pub id: Id,
    pub account: String,
    pub real_name: Option<String>,
    pub phone: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlatformDetail {
    pub user_id: Id,
    pub user_type: i64,
    pub user_ext: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct IdParam {
    pub id: Id,
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct IdsParam {
    /// Comma-joined ids.
    pub ids: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct UserIdsParam {
    /// Comma-joined user ids.
    pub user_ids: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct GrantParams {
    /// Comma-joined user ids.
    pub user_ids: String,
    /// Comma-joined role ids (the users' complete new role set).
    pub role_ids: String,
}

/// The filters of the user lists, besides paging and the declared field filters.
#[derive(Debug, IntoParams)]
#[into_params(rename_all = "camelCase", parameter_in = Query)]
pub struct UserFilter {
    pub current: Option<i64>,
    pub size: Option<i64>,
    pub account: Option<String>,
    pub real_name: Option<String>,
    pub phone: Option<String>,
    pub company_name: Option<String>,
    pub status: Option<i64>,
    /// A department; its sub-departments are included.
    pub dept_id: Option<String>,
    pub role_id: Option<String>,
    pub role_alias: Option<String>,
}

/// The user form's fields, checked; `None` lists were not sent (and are left as they are).
#[derive(Debug, Clone, Default)]
pub struct UserForm {
    pub account: Option<String>,
    pub real_name: Option<String>,
    pub name: Option<String>,
    pub phone: Option<String>,
    pub email: Option<String>,
    pub code: Option<String>,
    pub company_name: Option<String>,
    pub avatar: Option<String>,
    pub sex: Option<i64>,
    pub birthday: Option<i64>,
    pub user_type: Option<i64>,
    pub roles: Option<Vec<Id>>,
    pub depts: Option<Vec<Id>>,
    pub posts: Option<Vec<Id>>,
}

/// The body of `/api/blade-user/submit` and `/update`: the user form. Every field is optional
/// here; which ones an act requires, and each field's rule, is checked field by field (texts
/// also arrive as numbers, integers as numeric strings, id lists as an array or a number).
#[derive(Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct UserBody {
    /// The user to update; absent or empty creates one (a text or a number).
    pub id: Option<Id>,
    /// Letters, digits, `_` and `-`, at most 16 (required on create).
    pub account: Option<String>,
    /// Plain password (required on create).
    pub password: Option<String>,
    /// The password again, equal to `password`.
    pub password2: Option<String>,
    /// Required on create; an update may omit it but not empty it.
    pub real_name: Option<String>,
    pub name: Option<String>,
    /// 11-digit mobile number.
    pub phone: Option<String>,
    pub email: Option<String>,
    pub code: Option<String>,
    pub company_name: Option<String>,
    pub avatar: Option<String>,
    /// 1, 2 or 3.
    pub sex: Option<i64>,
    /// `yyyy-MM-dd` or `yyyy-MM-dd HH:mm:ss`.
    pub birthday: Option<String>,
    pub user_type: Option<i64>,
    /// Comma-separated role ids (required on create).
    pub role_id: Option<String>,
    /// Comma-separated department ids (required on create).
    pub dept_id: Option<String>,
    /// Comma-separated post ids.
    pub post_id: Option<String>,
}

/// The body of `/api/blade-user/saveOwner`: an owner's form (no roles or departments: an owner
/// gets the owner role and a department on creation). The same leniency as [`UserBody`].
#[derive(Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct OwnerBody {
    /// The owner to update; absent or empty creates one (a text or a number).
    pub id: Option<Id>,
    pub company_name: Option<String>,
    /// Letters, digits, `_` and `-`, at most 16 (required on create).
    pub account: Option<String>,
    pub real_name: Option<String>,
    pub name: Option<String>,
    /// 11-digit mobile number (required on create).
    pub phone: Option<String>,
    pub avatar: Option<String>,
    /// Plain password longer than 6 characters (required on create, optional on update).
    pub password: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> AccountRow {
        AccountRow {
            id: Id(5),
            tenant_id: Some("000000".into()),
            account: Some("ann".into()),
            name: None,
            real_name: Some("Ann".into()),
            email: None,
            phone: None,
            birthday: None,
            sex: Some(2),
            post_id: Some("".into()),
            user_type: 1,
            status: 1,
            company_name: None,
            avatar: None,
            code: None,
            locked_until: Some(1_000),
            create_time: 0,
        }
    }

    #[test]
    fn a_record_is_locked_only_until_its_lock_ends() {
        assert!(UserRecord::new(row(), Memberships::default(), 999).locked);
        assert!(!UserRecord::new(row(), Memberships::default(), 1_000).locked);
    }

    #[test]
    fn records_keep_nulls_ids_as_text_and_alphabetical_keys() {
        let names = Memberships {
            role_id: "1,2".into(),
            role_name: "a,b".into(),
            ..Memberships::default()
        };
        let json = serde_json::to_value(UserRecord::new(row(), names, 0)).unwrap();
        assert_eq!(json["id"], "5");
        assert_eq!(json["birthday"], serde_json::Value::Null);
        assert_eq!(json["sex"], 2);
        assert_eq!(json["roleName"], "a,b");
        let text = serde_json::to_string(&UserRecord::new(row(), Memberships::default(), 0)).unwrap();
        let keys: Vec<&str> = text
            .split(['{', ','])
            .filter_map(|p| p.strip_prefix('"')?.split('"').next())
            .filter(|k| k.chars().next().is_some_and(char::is_alphabetic))
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(keys, sorted);
        assert_eq!(keys.len(), 22);
    }
}
