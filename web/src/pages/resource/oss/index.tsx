import { useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import CrudPage from '../../../components/crud/CrudPage'
import type { Translate } from '../../../components/crud/types'
import { ossConfig } from './config'

/** /resource/oss: object storage configurations; the enabled one takes every upload. */
export default function OssPage() {
  const { t } = useTranslation()
  const config = useMemo(() => ossConfig(t as Translate), [t])
  return <CrudPage config={config} />
}
