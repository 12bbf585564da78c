-- Device overview (issue 30, docs/equipment.md): how many samples of a packed hour carry suspect
-- marks, written when the hour is packed, so "suspect values of the last day" is a sum over a
-- day's blocks instead of opening (decompressing) every block. NULL on blocks packed before this
-- migration: readers open those.
ALTER TABLE pv_telemetry_block ADD COLUMN suspect_samples BIGINT;
