import CrudPage from '../../../components/crud/CrudPage'
import { deptConfig } from './config'

/** /system/dept: the department tree. */
export default function DeptPage() {
  return <CrudPage config={deptConfig} />
}
