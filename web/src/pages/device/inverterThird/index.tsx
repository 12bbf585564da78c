import { useMemo, useState } from 'react'
import CrudPage from '../../../components/crud/CrudPage'
import type { InverterThird } from '../../../api/station/inverterThird'
import { inverterThirdConfig } from './config'
import PlantMappingDialog from './PlantMappingDialog'

/** /station/inverterThird: accounts on inverter vendors' clouds, and their plants' mapping. */
export default function InverterThirdPage() {
  const [mapping, setMapping] = useState<InverterThird | null>(null)
  const config = useMemo(() => inverterThirdConfig(setMapping), [])
  return (
    <>
      <CrudPage<InverterThird> config={config} />
      {mapping && (
        <PlantMappingDialog
          key={String(mapping.id)}
          account={mapping}
          onClose={() => setMapping(null)}
        />
      )}
    </>
  )
}
