import { useMemo, useState } from 'react'
import { type Model } from '../../../api/develop/model'
import CrudPage from '../../../components/crud/CrudPage'
import { modelConfig } from './config'
import FieldSettings from './FieldSettings'

/** /tool/model: tables of the data sources and the settings of their fields (platform only). */
export default function ModelPage() {
  const [fieldsOf, setFieldsOf] = useState<Model | null>(null)
  const config = useMemo(() => modelConfig(setFieldsOf), [])
  return (
    <>
      <CrudPage config={config} />
      {fieldsOf && <FieldSettings model={fieldsOf} onClose={() => setFieldsOf(null)} />}
    </>
  )
}
