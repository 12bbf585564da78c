//! The repair order's state machine, pure: statuses, actions, who may take each action and the
//! table of allowed transitions. Handlers ask [`check`] before their conditional UPDATE; the
//! detail's `actions` list is [`available`]. The same table is in `docs/repair.md`.

use crate::kernel::lang::{Lang, Text};

pub const SUBMITTED: i64 = 1;
pub const TO_ACCEPT: i64 = 2;
pub const ACCEPTED: i64 = 3;
pub const TO_REPAIR: i64 = 4;
pub const REPAIRED: i64 = 5;
pub const TO_EVALUATE: i64 = 6;
pub const COMPLETED: i64 = 7;
pub const CANCELED: i64 = 8;

/// Statuses of an order still open (its alarm is kept open meanwhile).
pub fn is_open(status: i64) -> bool {
    (SUBMITTED..COMPLETED).contains(&status)
}

const STATUS_NAMES: [(&str, &str); 8] = [
    ("已提交", "Submitted"),
    ("待受理", "To be accepted"),
    ("已受理", "Accepted"),
    ("待维修", "To be repaired"),
    ("已维修", "Repaired"),
    ("待评价", "To be evaluated"),
    ("已完成", "Completed"),
    ("已取消", "Canceled"),
];

pub const STATUSES: std::ops::RangeInclusive<i64> = SUBMITTED..=CANCELED;

pub fn status_name(status: i64, lang: Lang) -> String {
    usize::try_from(status - 1)
        .ok()
        .and_then(|i| STATUS_NAMES.get(i))
        .map(|(zh, en)| Text::new(zh, en).get(lang).to_owned())
        .unwrap_or_default()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    Assign,
    Accept,
    Transfer,
    Start,
    Finish,
    Verify,
    Evaluate,
    Cancel,
}

impl Action {
    pub const ALL: [Action; 8] = [
        Action::Assign,
        Action::Accept,
        Action::Transfer,
        Action::Start,
        Action::Finish,
        Action::Verify,
        Action::Evaluate,
        Action::Cancel,
    ];

    /// The wire name (`actions`, the timeline's `action`).
    pub fn name(self) -> &'static str {
        match self {
            Action::Assign => "assign",
            Action::Accept => "accept",
            Action::Transfer => "transfer",
            Action::Start => "start",
            Action::Finish => "finish",
            Action::Verify => "verify",
            Action::Evaluate => "evaluate",
            Action::Cancel => "cancel",
        }
    }

    /// The button (`repair_<action>`) a caller must hold to take the action.
    pub fn button(self) -> String {
        format!("repair_{}", self.name())
    }
}

/// What the caller is to this order. `dispatcher`: holds `repair_assign` and sees the station.
/// `evaluator`: the station's owner, or a dispatcher when the station has no owner.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Actor {
    pub assignee: bool,
    pub dispatcher: bool,
    pub creator: bool,
    pub evaluator: bool,
}

/// The statuses an action may start from and the status it leads to.
pub fn transition(action: Action) -> (&'static [i64], i64) {
    match action {
        Action::Assign => (&[SUBMITTED], TO_ACCEPT),
        Action::Accept => (&[TO_ACCEPT], ACCEPTED),
        Action::Transfer => (&[TO_ACCEPT, ACCEPTED], TO_ACCEPT),
        Action::Start => (&[ACCEPTED], TO_REPAIR),
        Action::Finish => (&[TO_REPAIR], REPAIRED),
        Action::Verify => (&[REPAIRED], TO_EVALUATE),
        Action::Evaluate => (&[TO_EVALUATE], COMPLETED),
        Action::Cancel => (&[SUBMITTED, TO_ACCEPT, ACCEPTED, TO_REPAIR], CANCELED),
    }
}

/// Whether `actor` is one of those who may take `action` (whatever the status).
pub fn may(actor: Actor, action: Action) -> bool {
    match action {
        Action::Assign | Action::Verify => actor.dispatcher,
        Action::Accept | Action::Start | Action::Finish => actor.assignee,
        Action::Transfer => actor.assignee || actor.dispatcher,
        Action::Evaluate => actor.evaluator,
        Action::Cancel => actor.creator || actor.dispatcher,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The action does not start from the order's status (400).
    Status,
    /// The status allows it, but not for this caller (403).
    Actor,
}

pub const NOT_IN_STATUS: Text = Text::new(
    "当前状态不允许该操作",
    "This action is not allowed in the current status",
);
pub const NOT_YOURS: Text = Text::new(
    "您无权对该工单执行此操作",
    "You may not take this action on this repair order",
);

/// The status `action` leads to from `status` when `actor` takes it.
pub fn check(status: i64, action: Action, actor: Actor) -> Result<i64, Refused> {
    let (from, to) = transition(action);
    if !from.contains(&status) {
        return Err(Refused::Status);
    }
    if !may(actor, action) {
        return Err(Refused::Actor);
    }
    Ok(to)
}

/// The actions `actor` may take now, in the order of [`Action::ALL`].
pub fn available(status: i64, actor: Actor) -> Vec<Action> {
    Action::ALL
        .into_iter()
        .filter(|a| check(status, *a, actor).is_ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (status, action) pair that the documented table allows, with its target.
    const ALLOWED: &[(i64, Action, i64)] = &[
        (SUBMITTED, Action::Assign, TO_ACCEPT),
        (SUBMITTED, Action::Cancel, CANCELED),
        (TO_ACCEPT, Action::Accept, ACCEPTED),
        (TO_ACCEPT, Action::Transfer, TO_ACCEPT),
        (TO_ACCEPT, Action::Cancel, CANCELED),
        (ACCEPTED, Action::Transfer, TO_ACCEPT),
        (ACCEPTED, Action::Start, TO_REPAIR),
        (ACCEPTED, Action::Cancel, CANCELED),
        (TO_REPAIR, Action::Finish, REPAIRED),
        (TO_REPAIR, Action::Cancel, CANCELED),
        (REPAIRED, Action::Verify, TO_EVALUATE),
        (TO_EVALUATE, Action::Evaluate, COMPLETED),
    ];

    const EVERYONE: Actor = Actor {
        assignee: true,
        dispatcher: true,
        creator: true,
        evaluator: true,
    };

    #[test]
    fn every_pair_is_allowed_exactly_as_the_table_says() {
        let mut allowed = 0;
        for status in STATUSES {
            for action in Action::ALL {
                let want = ALLOWED
                    .iter()
                    .find(|(s, a, _)| *s == status && *a == action)
                    .map(|(_, _, to)| *to);
                match want {
                    Some(to) => {
                        allowed += 1;
                        assert_eq!(check(status, action, EVERYONE), Ok(to), "{status} {action:?}");
                    }
                    None => assert_eq!(
                        check(status, action, EVERYONE),
                        Err(Refused::Status),
                        "{status} {action:?} must be refused"
                    ),
                }
            }
        }
        assert_eq!(allowed, ALLOWED.len());
        // Completed and canceled are final.
        assert!(available(COMPLETED, EVERYONE).is_empty());
        assert!(available(CANCELED, EVERYONE).is_empty());
    }

    #[test]
    fn only_the_right_people_act() {
        let assignee = Actor {
            assignee: true,
            ..Actor::default()
        };
        let dispatcher = Actor {
            dispatcher: true,
            ..Actor::default()
        };
        let creator = Actor {
            creator: true,
            ..Actor::default()
        };
        let owner = Actor {
            evaluator: true,
            ..Actor::default()
        };
        let nobody = Actor::default();
        for (status, action, _) in ALLOWED {
            let who = |a: Actor| check(*status, *action, a).is_ok();
            let expect = match action {
                Action::Assign | Action::Verify => [false, true, false, false],
                Action::Accept | Action::Start | Action::Finish => [true, false, false, false],
                Action::Transfer => [true, true, false, false],
                Action::Evaluate => [false, false, false, true],
                Action::Cancel => [false, true, true, false],
            };
            assert_eq!(
                [who(assignee), who(dispatcher), who(creator), who(owner)],
                expect,
                "{status} {action:?}"
            );
            assert_eq!(check(*status, *action, nobody), Err(Refused::Actor));
        }
        assert_eq!(
            available(TO_ACCEPT, assignee),
            vec![Action::Accept, Action::Transfer]
        );
        assert_eq!(
            available(SUBMITTED, dispatcher),
            vec![Action::Assign, Action::Cancel]
        );
    }

    #[test]
    fn names_and_buttons() {
        assert_eq!(status_name(TO_EVALUATE, Lang::Zh), "待评价");
        assert_eq!(status_name(CANCELED, Lang::En), "Canceled");
        assert_eq!(status_name(9, Lang::En), "");
        assert_eq!(Action::Evaluate.button(), "repair_evaluate");
        assert!(is_open(TO_EVALUATE) && !is_open(COMPLETED) && !is_open(CANCELED));
    }
}
