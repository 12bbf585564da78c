import { Tag } from 'antd'
import { useTranslation } from 'react-i18next'
import type { InverterLiveStatus } from '../../../api/station/inverter'
import { STATUS_COLOURS } from '../../../components/realtime/status'

const COLOUR: Readonly<Record<InverterLiveStatus, string>> = {
  online: STATUS_COLOURS.producing,
  offline: STATUS_COLOURS.offline,
  fault: STATUS_COLOURS.fault,
}

/** An inverter's live status as a coloured tag (the realtime pages' colours). */
export function LiveStatusTag({ status }: { status: InverterLiveStatus }) {
  const { t } = useTranslation()
  return (
    <Tag color={COLOUR[status]} data-testid="inverter-live-status" data-status={status}>
      {t(`deviceUi.inverter.liveStatuses.${status}`)}
    </Tag>
  )
}
