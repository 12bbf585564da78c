-- Messages about work (issue 16): inspection reminders and repair orders are messages too, next
-- to alarm messages. `type` says what a message is about (1 station fault, 2 smart warning,
-- 3 inspection task, 4 repair order) and `biz_id` points at the task or order it concerns, so
-- the console opens it from the message list or the bell.
ALTER TABLE pv_message ADD COLUMN biz_id BIGINT;
