import CrudPage from '../../../components/crud/CrudPage'
import { menuConfig } from './config'

/** /system/menu: the menu tree. */
export default function MenuAdminPage() {
  return <CrudPage config={menuConfig} />
}
