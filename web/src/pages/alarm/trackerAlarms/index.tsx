import { Typography } from 'antd'
import { useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import type { AlarmDataFlex } from '../../../api/alarm/flex'
import CrudPage from '../../../components/crud/CrudPage'
import { alarmDataConfig } from './config'

/** /flex/alarmData: bracket alarms (buttons `alarmDataFlex_view|_delete`). */
export default function AlarmDataFlexPage() {
  const { t } = useTranslation()
  const config = useMemo(() => alarmDataConfig(), [])
  return (
    <div data-testid="flex-alarm-data-page">
      <Typography.Paragraph type="secondary" style={{ fontSize: 12 }}>
        {t('analytics.flexData.deleteHint')}
      </Typography.Paragraph>
      <CrudPage<AlarmDataFlex> config={config} />
    </div>
  )
}
