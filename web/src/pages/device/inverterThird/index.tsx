import { useMemo } from 'react'
import CrudPage from '../../../components/crud/CrudPage'
import type { InverterThird } from '../../../api/station/inverterThird'
import { inverterThirdConfig } from './config'

/** /station/inverterThird: accounts on inverter vendors' clouds. */
export default function InverterThirdPage() {
  const config = useMemo(() => inverterThirdConfig(), [])
  return <CrudPage<InverterThird> config={config} />
}
