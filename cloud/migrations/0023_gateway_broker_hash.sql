-- The gateway's password again, hashed the way Mosquitto's password file expects (PBKDF2-SHA512,
-- `$7$` format), so a hub in front of an external Mosquitto can rewrite that file from the
-- database at any time without keeping the password. NULL for credentials issued before.
ALTER TABLE pv_gateway_credential ADD COLUMN broker_hash VARCHAR(255);
