import { useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import CrudPage from '../../../components/crud/CrudPage'
import type { Translate } from '../../../components/crud/types'
import { notifyLogConfig } from './config'

/** /resource/notifyLog: every SMS and e-mail of the tenant, who got it and how it went. */
export default function NotifyLogPage() {
  const { t } = useTranslation()
  const config = useMemo(() => notifyLogConfig(t as Translate), [t])
  return <CrudPage config={config} />
}
