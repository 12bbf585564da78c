import { Tag } from 'antd'
import { useTranslation } from 'react-i18next'
import { RUNNING } from '../../../api/station/station'

/** Commissioning (orange) or running (green). */
export default function InstallationStatusTag({ status }: { status?: string }) {
  const { t } = useTranslation()
  return status === RUNNING ? (
    <Tag color="green" data-testid="installation-status" data-status={status}>
      {t('stationUi.status.running')}
    </Tag>
  ) : (
    <Tag color="orange" data-testid="installation-status" data-status={status}>
      {t('stationUi.status.commissioning')}
    </Tag>
  )
}
