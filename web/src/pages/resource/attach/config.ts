/** Attachments (the `/api/blade-resource/attach` family): every upload, removable. */
import { downloadAttachment, attachApi, type Attachment } from '../../../api/resource/resource'
import { sizeText } from '../../../api/report/files'
import type { CrudConfig, Translate } from '../../../components/crud/types'

export function attachConfig(t: Translate): CrudConfig<Attachment> {
  return {
    menuCode: 'attach',
    api: attachApi,
    without: ['add', 'edit'],
    fields: [
      { name: 'id', label: 'resource.attach.originalName', hideInTable: true, hideInForm: true },
      { name: 'originalName', label: 'resource.attach.originalName', search: true, max: 200 },
      { name: 'extension', label: 'resource.attach.extension', search: true, width: 100 },
      {
        name: 'attachSize',
        label: 'resource.attach.attachSize',
        width: 110,
        render: (v) => sizeText(Number(v)),
      },
      {
        name: 'ossCode',
        label: 'resource.attach.store',
        hideInForm: true,
        width: 140,
        render: (v) => (typeof v === 'string' && v ? v : t('resource.attach.localDisk')),
      },
      { name: 'createTime', label: 'resource.attach.createTime', hideInForm: true, width: 170 },
    ],
    rowActions: [
      {
        key: 'download',
        label: 'resource.attach.download',
        permission: 'attach_download',
        run: (row) => void downloadAttachment(row),
      },
    ],
  }
}
