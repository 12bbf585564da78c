import { useCallback, useMemo, useState } from 'react'
import CrudPage from '../../../components/crud/CrudPage'
import { topMenuConfig } from './config'
import TopMenuSettingDialog from './TopMenuSettingDialog'

/** /system/topmenu: top menus and the menus each leads to. */
export default function TopMenuPage() {
  const [setting, setSetting] = useState<{ ids: string[]; reload: () => void } | null>(null)
  const config = useMemo(() => topMenuConfig((ids, reload) => setSetting({ ids, reload })), [])
  const close = useCallback(() => setSetting(null), [])
  return (
    <>
      <CrudPage config={config} />
      {setting && (
        <TopMenuSettingDialog
          topMenuIds={setting.ids}
          onClose={close}
          onDone={() => {
            setSetting(null)
            setting.reload()
          }}
        />
      )}
    </>
  )
}
