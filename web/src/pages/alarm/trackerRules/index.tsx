import { useMemo } from 'react'
import type { AlarmSettingFlex } from '../../../api/alarm/flex'
import CrudPage from '../../../components/crud/CrudPage'
import { alarmSettingConfig } from './config'

/** /flex/alarmSetting: bracket alarm rules (buttons `alarmSettingFlex_add|_edit|_delete`). */
export default function AlarmSettingFlexPage() {
  const config = useMemo(() => alarmSettingConfig(), [])
  return (
    <div data-testid="flex-alarm-setting-page">
      <CrudPage<AlarmSettingFlex> config={config} />
    </div>
  )
}
