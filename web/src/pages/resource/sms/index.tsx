import { useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import CrudPage from '../../../components/crud/CrudPage'
import type { Translate } from '../../../components/crud/types'
import { smsConfig } from './config'

/** /resource/sms: SMS configurations; the enabled one sends codes and notifications. */
export default function SmsPage() {
  const { t } = useTranslation()
  const config = useMemo(() => smsConfig(t as Translate), [t])
  return <CrudPage config={config} />
}
