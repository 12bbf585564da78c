import { useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import CrudPage from '../../../components/crud/CrudPage'
import type { Translate } from '../../../components/crud/types'
import { attachConfig } from './config'

/** /resource/attach: every uploaded file; removing one deletes it from its storage. */
export default function AttachPage() {
  const { t } = useTranslation()
  const config = useMemo(() => attachConfig(t as Translate), [t])
  return <CrudPage config={config} />
}
