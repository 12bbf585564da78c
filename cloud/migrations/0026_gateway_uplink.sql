-- What each gateway costs on its uplink: the encoding of its newest telemetry payload (json or
-- binary, told apart by the payload itself) and the payload bytes and samples received, so the
-- console shows bytes per sample. Totals added by every replica's counter flush.
ALTER TABLE pv_gateway_state ADD COLUMN uplink_encoding VARCHAR(16);
ALTER TABLE pv_gateway_state ADD COLUMN uplink_bytes BIGINT NOT NULL DEFAULT 0;
ALTER TABLE pv_gateway_state ADD COLUMN uplink_samples BIGINT NOT NULL DEFAULT 0;
