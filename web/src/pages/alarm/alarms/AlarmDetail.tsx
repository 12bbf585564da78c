import { Button, Descriptions, Drawer, Space, Tag, Typography } from 'antd'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router-dom'
import type { AlarmAction, AlarmRecord } from '../../../api/alarm/alarm'
import AlarmOrder from '../../../components/repair/AlarmOrder'
import { categoryLabel, deviceKindLabel, levelLabel, statusLabel } from './labels'
import {
  allowedActions,
  formatMeasure,
  levelColor,
  statusColor,
  valueVsThreshold,
  warningLink,
} from './logic'

export interface AlarmDetailProps {
  record: AlarmRecord | null
  open: boolean
  warn: boolean
  canHandle: boolean
  statusNames: Readonly<Record<string, string>>
  levelNames: Readonly<Record<string, string>>
  onClose: () => void
  onAction: (record: AlarmRecord, action: AlarmAction) => void
}

const dash = (v: string | number | null | undefined) =>
  v === null || v === undefined || v === '' ? '-' : String(v)

/** Everything about one alarm, who acknowledged or cleared it, when, and why. */
export default function AlarmDetail({
  record,
  open,
  warn,
  canHandle,
  statusNames,
  levelNames,
  onClose,
  onAction,
}: AlarmDetailProps) {
  const { t } = useTranslation()
  const link = record && warn ? warningLink(record) : null
  const actions = record && canHandle ? allowedActions(record.status) : []
  return (
    <Drawer
      open={open}
      size="large"
      title={t(warn ? 'alarmUi.warnDetailTitle' : 'alarmUi.detailTitle')}
      onClose={onClose}
      data-testid="alarm-detail"
      extra={
        record && (
          <Space wrap>
            {!record.repairId && <AlarmOrder alarmId={record.id} />}
            {actions.map((action) => (
              <Button
                key={action}
                type={action === 'ack' ? 'primary' : 'default'}
                danger={action === 'clear'}
                data-testid={`alarm-detail-${action}`}
                onClick={() => onAction(record, action)}
              >
                {t(`alarmUi.action.${action}`)}
              </Button>
            ))}
          </Space>
        )
      }
    >
      {record && (
        <div data-testid={`alarm-detail-${record.id}`} data-status={record.status}>
          <Typography.Title level={5} style={{ marginTop: 0 }}>
            {record.warningName}
          </Typography.Title>
          <Descriptions column={1} bordered size="small">
            <Descriptions.Item label={t('alarmUi.field.station')}>
              {dash(record.stationName)}
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.device')}>
              {dash(record.deviceName)}
              {record.deviceKind ? ` (${deviceKindLabel(t, record.deviceKind)})` : ''}
            </Descriptions.Item>
            {record.deviceSn && (
              <Descriptions.Item label={t('alarmUi.field.deviceSn')}>
                {record.deviceSn}
              </Descriptions.Item>
            )}
            <Descriptions.Item label={t('alarmUi.field.category')}>
              {categoryLabel(t, record.category)}
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.level')}>
              <Tag color={levelColor(record.level)}>{levelLabel(t, record.level, levelNames)}</Tag>
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.status')}>
              <Tag color={statusColor(record.status)} data-testid="alarm-detail-status">
                {record.statusName || statusLabel(t, record.status, statusNames)}
              </Tag>
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.code')}>
              {dash(record.code)}
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.detail')}>
              {dash(record.detail)}
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.value')}>
              {formatMeasure(record.value)}
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.threshold')}>
              {formatMeasure(record.threshold)}
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.valueVsThreshold')}>
              <span data-testid="alarm-detail-value">{valueVsThreshold(record)}</span>
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.firstTime')}>
              {dash(record.firstTime)}
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.lastTime')}>
              {dash(record.lastTime)}
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.occurrences')}>
              {dash(record.occurrences)}
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.ackUser')}>
              <span data-testid="alarm-detail-ack-user">{dash(record.ackUserName)}</span>
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.ackTime')}>
              {dash(record.ackTime)}
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.ackNote')}>
              <span data-testid="alarm-detail-ack-note">{dash(record.ackNote)}</span>
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.clearUser')}>
              <span data-testid="alarm-detail-clear-user">{dash(record.clearUserName)}</span>
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.clearTime')}>
              {dash(record.clearTime)}
            </Descriptions.Item>
            <Descriptions.Item label={t('alarmUi.field.clearNote')}>
              {dash(record.clearNote)}
            </Descriptions.Item>
            {record.repairId && (
              <Descriptions.Item label={t('repair.fromAlarm.order')}>
                <AlarmOrder
                  alarmId={record.id}
                  repairId={record.repairId}
                  repairStatus={record.repairStatus}
                />
              </Descriptions.Item>
            )}
            <Descriptions.Item label={t('alarmUi.field.kind')}>
              {dash(record.kind)}
            </Descriptions.Item>
          </Descriptions>
          {link && (
            <div style={{ marginTop: 16 }}>
              <Link to={link.to} data-testid="warning-link">
                {t(link.label)}
              </Link>
            </div>
          )}
        </div>
      )}
    </Drawer>
  )
}
