import { Space, Tag } from 'antd'
import { useTranslation } from 'react-i18next'
import type { InverterLiveStatus } from '../../../api/station/inverter'
import { QualityTag } from '../../../components/realtime/DeviceQuality'
import { STATUS_COLOURS } from '../../../components/realtime/status'

const COLOUR: Readonly<Record<InverterLiveStatus, string>> = {
  online: STATUS_COLOURS.producing,
  offline: STATUS_COLOURS.offline,
  fault: STATUS_COLOURS.fault,
}

/**
 * An inverter's live status as a coloured tag (the realtime pages' colours). While its gateway
 * withholds its values it is not "online": the withheld tag (reason in its tooltip) shows
 * instead, an open fault alarm still beside it.
 */
export function LiveStatusTag({
  status,
  withheld,
}: {
  status: InverterLiveStatus
  withheld?: string | null
}) {
  const { t } = useTranslation()
  const tag = (
    <Tag color={COLOUR[status]} data-testid="inverter-live-status" data-status={status}>
      {t(`deviceUi.inverter.liveStatuses.${status}`)}
    </Tag>
  )
  if (!withheld) return tag
  return (
    <Space size={4} wrap>
      <QualityTag state="withheld" reason={withheld} testId="inverter-live-withheld" />
      {status === 'fault' && tag}
    </Space>
  )
}
